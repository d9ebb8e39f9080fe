import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Drops the cache and fetches the latest plan again.
    public struct Refresh: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "refresh", abstract: "Fetch the latest plan from the API, bypassing and then replacing the cache.", discussion: "Examples:\n  brados mealplan refresh")

        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Runs in the environment of the `brados` process (``AppEnvironment/live(_:access:)``).
        public func run() async throws {
            try await run(in: AppEnvironment.live(global))
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let loaded = try await MealPlanRepository.live(env).refresh()
            try MealPlanRenderer(output: env.output, now: env.now()).render(loaded.session, source: loaded.source)
        }
    }
}
