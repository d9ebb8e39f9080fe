import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Finalizes the draft in progress and caches it.
    public struct Finalize: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "finalize", 
            abstract: "Finalize the plan in progress and cache it (replacing the cached plan).", discussion: "Examples:\n  brados mealplan finalize")

        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let session = try await MealPlanRepository.live(env).finalize()
            try MealPlanRenderer(output: env.output, now: env.now()).render(session, source: .network)
        }
    }
}
