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
            let renderer = MealPlanRenderer(output: env.output, now: env.now())
            try await env.reader.show(MealPlanRepository.live(env).latestPlan) { try renderer.renderToday($0, source: $1) }
        }
    }
}
