import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Prints the latest finalized meal plan, from the disk cache when present.
    public struct Show: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "show", 
            abstract: "Show the latest meal plan (from cache when present: no request).", discussion: "Examples:\n  brados mealplan show\n  brados mealplan show --json")

        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            try await env.reader.show(MealPlanRepository.live(env).latestPlan, with: MealPlanRenderer(output: env.output, now: env.now()))
        }
    }
}
