import ArgumentParser
import BradOSCore

extension NutritionCommand {
    public struct Why: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "why", abstract: "Explain why the targets work, with the science behind them.", discussion: "Examples:\n  brados plan why")
        @OptionGroup var global: GlobalOptions
        public init() {}
        /// Runs in the environment of the `brados` process (``AppEnvironment/live(_:access:)``).
        public func run() async throws { try await run(in: AppEnvironment.live(global)) }
        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws { try await NutritionCommand.present(.why, in: env) }
    }
}
