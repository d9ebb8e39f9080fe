import ArgumentParser
import BradOSCore

extension NutritionCommand {
    /// `plan history`: the weights logged, newest first, queued ones marked.
    public struct History: EnvironmentCommand {
        public static let configuration = CommandConfiguration(
            commandName: "history", abstract: "List the weights you logged, newest first (queued ones marked).",
            discussion: """
            The weights come with the plan (cached with it, by the same one-hour TTL); weights \
            logged with `plan weight` and not sent yet are listed as queued.
            Examples:
              brados plan history
              brados plan history --json
            """)
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            env.pageOutput()
            let store = try NutritionRepository.live(env)
            let found = try await env.reader.answer(store.currentPlan)
            let log = WeightLog(history: found.value.weights, queued: store.queued)
            try NutritionRenderer(output: env.output).history(log)
        }
    }
}
