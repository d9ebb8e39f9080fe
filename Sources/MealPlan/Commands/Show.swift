import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Prints the latest finalized meal plan, from the disk cache when present.
    public struct Show: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "show", 
            abstract: "Show the latest meal plan (from cache when present: no request).", discussion: "Examples:\n  brados mealplan show\n  brados mealplan show --json")

        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            try await env.reader.show(MealPlanRepository.live(env).latestPlan, with: MealPlanRenderer(output: env.output, now: env.now()))
        }
    }
}
