import ArgumentParser
import BradOSCore

extension NutritionCommand {
    /// The background half of `plan show` (and `targets`, `why`) with a cached plan due a
    /// refresh: fetches the plan, then exits. Hidden; started by ``CacheReader``, one at a time.
    public struct Revalidate: EnvironmentCommand {
        public static let configuration = CommandConfiguration(
            commandName: "revalidate", abstract: "Refresh the cached plan in the background (used by `plan show`).",
            discussion: "Examples:\n  brados plan revalidate", shouldDisplay: false)
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let plan = try NutritionRepository.live(env).currentPlan
            try await plan.backgroundRefresh?.stamp?.runBehind(now: env.now) { _ = try await plan.fetch { _, _ in } }
        }
    }
}
