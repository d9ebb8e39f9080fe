import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Drops the cache and fetches the latest plan again.
    public struct Refresh: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(abstract: "Invalidate the cache, then fetch the latest plan from the API.")

        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try AppEnvironment.live(global)
            if env.isOffline { throw NetworkError.offlineMode } // never drop the cache we could not refill
            let loaded = try await MealPlanStore.live(env).refresh()
            try MealPlanRenderer(output: env.output, now: env.now()).render(loaded.session, source: loaded.source)
        }
    }
}
