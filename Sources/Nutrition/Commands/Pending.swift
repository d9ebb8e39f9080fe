import ArgumentParser
import BradOSCore

extension NutritionCommand {
    public struct Pending: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "pending", abstract: "List the changes waiting to be sent, oldest first.", discussion: "Examples:\n  brados plan pending\n  brados plan pending --json")
        @OptionGroup var global: GlobalOptions
        public init() {}
        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try NutritionRepository.live(env)
            try NutritionRenderer(output: env.output).pending(try store.queue.all(), now: env.now())
        }
    }
}
