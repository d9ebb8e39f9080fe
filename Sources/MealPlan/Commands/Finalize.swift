import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Finalizes the draft in progress and caches it.
    public struct Finalize: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "finalize", 
            abstract: "Finalize the plan in progress and cache it (replacing the cached plan).", discussion: "Examples:\n  brados mealplan finalize")

        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let session = try await MealPlanRepository.live(env).finalize()
            try MealPlanRenderer(output: env.output, now: env.now()).render(session, source: .network)
        }
    }
}
