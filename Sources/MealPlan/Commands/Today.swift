import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Prints today's meals (the dashboard card).
    public struct Today: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "today", abstract: "Show today's meals (from cache when present).", discussion: "Examples:\n  brados mealplan today")

        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let renderer = MealPlanRenderer(output: env.output, now: env.now())
            try await env.reader.show(MealPlanRepository.live(env).latestPlan) { try renderer.renderToday($0, source: $1) }
        }
    }
}
