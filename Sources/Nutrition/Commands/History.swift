import ArgumentParser
import BradOSCore

extension NutritionCommand {
    /// `plan history`: the weights logged, newest first, queued ones marked; `--plans`: the plans kept.
    public struct History: EnvironmentCommand {
        public static let configuration = CommandConfiguration(
            commandName: "history", abstract: "List the weights you logged, newest first (queued ones marked); --plans lists the plans kept.",
            discussion: """
            The weights come with the plan (cached with it, by the same one-hour TTL); weights \
            logged with `plan weight` and not sent yet are listed as queued.
            With --plans, the plans brados has received, newest first, with their ids for \
            `brados plan diff` (the last 100 are kept, in the profile's cache: exported and \
            imported with it, erased by `brados auth logout`). Read from the cache only.
            Examples:
              brados plan history
              brados plan history --json
              brados plan history --plans
            """)
        @Flag(help: "List the plans kept instead of the weights.") var plans = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            env.pageOutput()
            let repository = try NutritionRepository.live(env)
            if plans {
                return try NutritionRenderer(output: env.output).keptPlans(repository.cache.kept.all(), now: env.now())
            }
            let found = try await env.reader.answer(repository.currentPlan)
            let log = WeightLog(history: found.value.weights, queued: repository.queued)
            try NutritionRenderer(output: env.output).history(log)
        }
    }
}
