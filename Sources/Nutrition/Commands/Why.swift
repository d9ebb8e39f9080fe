import ArgumentParser
import BradOSCore

extension NutritionCommand {
    public struct Why: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "why", abstract: "Explain why the targets work, with the science behind them.", discussion: "Examples:\n  brados plan why")
        @OptionGroup public var global: GlobalOptions
        public init() {}
        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws { try await NutritionCommand.present(.why, in: env) }
    }
}
