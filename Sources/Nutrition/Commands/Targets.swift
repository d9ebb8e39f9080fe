import ArgumentParser
import BradOSCore

extension NutritionCommand {
    public struct Targets: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "targets", abstract: "Show every target, BMR and TDEE included.", discussion: "Examples:\n  brados plan targets")
        @OptionGroup var global: GlobalOptions
        public init() {}
        /// Runs in the environment of the `brados` process (``AppEnvironment/live(_:access:)``).
        public func run() async throws { try await run(in: AppEnvironment.live(global)) }
        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws { try await NutritionCommand.present(.targets, in: env) }
    }
}
