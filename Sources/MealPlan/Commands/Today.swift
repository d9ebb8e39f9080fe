import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Prints today's meals (the dashboard card).
    public struct Today: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "today", abstract: "Show today's meals (from cache when present).", discussion: "Examples:\n  brados mealplan today")

        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let loaded = try await MealPlanStore.live(env).latest()
            try MealPlanRenderer(output: env.output, now: env.now()).renderToday(loaded.session, source: loaded.source)
        }
    }
}
