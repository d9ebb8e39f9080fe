import ArgumentParser
import BradOSCore

extension NutritionCommand {
    public struct Recompute: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "recompute", abstract: "Ask the service to compute the plan again (forceRecompute).", discussion: "Examples:\n  brados plan recompute")
        @OptionGroup var global: GlobalOptions
        public init() {}
        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try NutritionRepository.live(env)
            let result = try await Spinner.run("Recomputing your plan", io: env.io, enabled: env.output.format == .human) { try await store.recompute() }
            try NutritionRenderer(output: env.output).render(result, view: .summary)
        }
    }
}
