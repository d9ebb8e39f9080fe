import ArgumentParser
import BradOSCore

extension NutritionCommand {
    public struct Pending: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "pending", abstract: "List the changes waiting to be sent, oldest first.", discussion: "Examples:\n  brados plan pending\n  brados plan pending --json")
        @OptionGroup var global: GlobalOptions
        public init() {}
        /// Runs in the environment of the `brados` process (``AppEnvironment/live(_:access:)``).
        public func run() async throws {
            try await run(in: AppEnvironment.live(global))
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let store = try NutritionRepository.live(env)
            try NutritionRenderer(output: env.output).pending(try store.queue.all(), now: env.now())
        }
    }
}
