import ArgumentParser
import BradOSCore
import BradOSTerminal

extension NutritionCommand {
    public struct Recompute: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "recompute", abstract: "Ask the service to compute the plan again (forceRecompute).", discussion: "Examples:\n  brados plan recompute")
        @OptionGroup public var global: GlobalOptions
        public init() {}
        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try NutritionRepository.live(env)
            let result = try await Spinner.run("Recomputing your plan", io: env.io, enabled: env.output.format == .human) { try await repository.recompute() }
            try NutritionRenderer(output: env.output).render(result, view: .summary)
        }
    }
}
