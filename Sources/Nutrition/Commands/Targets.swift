import ArgumentParser
import BradOSCore

extension NutritionCommand {
    public struct Targets: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "targets", abstract: "Show every target, BMR and TDEE included.", discussion: "Examples:\n  brados plan targets")
        @OptionGroup public var global: GlobalOptions
        public init() {}
        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws { try await NutritionCommand.present(.targets, in: env) }
    }
}
