import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Drops the cache and fetches the latest plan again.
    public struct Refresh: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "refresh", abstract: "Fetch the latest plan from the API, bypassing and then replacing the cache.", discussion: "Examples:\n  brados mealplan refresh")

        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let loaded = try await MealPlanRepository.live(env).refresh()
            try MealPlanRenderer(output: env.output, now: env.now()).render(loaded.session, source: loaded.source)
        }
    }
}
