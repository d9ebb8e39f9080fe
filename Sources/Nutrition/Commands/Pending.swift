import ArgumentParser
import BradOSCore

extension NutritionCommand {
    public struct Pending: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "pending", abstract: "List the changes waiting to be sent, oldest first.", discussion: "Examples:\n  brados plan pending\n  brados plan pending --json")
        @OptionGroup public var global: GlobalOptions
        public init() {}
        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try NutritionRepository.live(env)
            try NutritionRenderer(output: env.output).pending(try repository.queue.all(), now: env.now(), account: NutritionPlugin.account(of: env))
        }
    }
}
