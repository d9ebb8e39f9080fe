import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Drops the cache and fetches the latest plan again.
    public struct Refresh: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "refresh", abstract: "Fetch the latest plan from the API, bypassing and then replacing the cache.", discussion: "Examples:\n  brados mealplan refresh")

        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let loaded = try await MealPlanRepository.live(env).refresh()
            try MealPlanRenderer(output: env.output, now: env.now()).render(loaded.session, source: loaded.source)
        }
    }
}
