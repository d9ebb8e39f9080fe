import ArgumentParser
import BradOSCore

extension NutritionCommand {
    /// `plan diff [A] [B]`: what changed between two kept plans.
    public struct Diff: EnvironmentCommand {
        public static let configuration = CommandConfiguration(
            commandName: "diff", abstract: "Show what changed between two plans kept (by default the last two).",
            discussion: """
            A and B are the plans' ids from `brados plan history --plans` (ids of this profile's \
            own, unique whichever server sent each plan); with only A, it is compared \
            with the latest plan. Calories, protein, water, BMR, TDEE, the weekly rate, the \
            timeline and the dates, each with its difference. Read from the cache only.
            Examples:
              brados plan diff
              brados plan diff 3 5
              brados plan diff 3 --json
            """)
        @Argument(help: "The older plan's id (default: the one before the latest).", completion: .custom { _, _, _ in NutritionPlugin.keptPlanIDs() })
        var from: Int?
        @Argument(help: "The newer plan's id (default: the latest).", completion: .custom { _, _, _ in NutritionPlugin.keptPlanIDs() })
        var to: Int?
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try NutritionRepository.live(env)
            let pair = try repository.cache.kept.pair(from: from, to: to)
            try NutritionRenderer(output: env.output).comparison(NutritionPlanComparison(from: pair.from, to: pair.to))
        }
    }
}
