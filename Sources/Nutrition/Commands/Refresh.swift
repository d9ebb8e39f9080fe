import ArgumentParser
import BradOSCore
import BradOSTerminal

extension NutritionCommand {
    public struct Refresh: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "refresh", 
            abstract: "Fetch the plan, ignoring the cache (which is replaced only by a valid answer).", discussion: "Examples:\n  brados plan refresh")
        @OptionGroup public var global: GlobalOptions
        public init() {}
        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try NutritionRepository.live(env)
            let result = try await Spinner.run("Fetching your plan", io: env.io, enabled: env.output.format == .human) { try await repository.refresh() }
            try NutritionRenderer(output: env.output).render(result, view: .summary)
        }
    }
}
