import ArgumentParser
import BradOSCore
import BradOSTerminal

extension NutritionCommand {
    /// Records a new weight: queued durably first, then sent (when online) and the plan recomputed.
    public struct Weight: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "weight", 
            abstract: "Update your current weight (30–300 kg), then recompute the plan; queued when offline.",
            discussion: "The change is written to the pending queue before anything is sent, so it is never lost: offline, or if the service cannot be reached, it waits for `brados plan sync`.\nExamples:\n  brados plan weight 84.5\n  brados --offline plan weight 84")

        @Argument(help: "Your weight in kilograms, e.g. 84.5.") var kilograms: Double
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            guard kilograms.isFinite, (30...300).contains(kilograms) else {
                throw ValidationError("The weight must be between 30 and 300 kg (got \(Format.number(kilograms))).")
            }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try NutritionRepository.live(env)
            let renderer = NutritionRenderer(output: env.output)
            let (operation, report) = try await Spinner.run("Updating your weight", io: env.io, enabled: env.output.format == .human) {
                try await repository.updateWeight(kilograms)
            }
            guard let report else {
                if env.output.format == .json { return try renderer.queuedOffline(operation, remaining: try repository.queue.all()) }
                env.output.line("Queued \(operation.summary): offline. `brados plan sync` sends it when you are back online.")
                return
            }
            try renderer.sync(report, queued: operation)
            if let dropped = report.dropped.first(where: { $0.operation.id == operation.id }) { throw dropped.error }
            if report.remaining.contains(where: { $0.id == operation.id }) {
                // Kept for later: fine for a failure the plan's cache policy answers (the network
                // or the service); anything the user must fix (an expired session) is the command's error.
                if let error = report.stoppedBy, !repository.policy.answers(error) { throw error }
                if env.output.format == .human { env.output.line("Queued \(operation.summary); `brados plan sync` sends it later.") }
            } else if !report.applied.contains(where: { $0.id == operation.id }), env.output.format == .human {
                env.output.line("\(operation.summary.prefix(1).uppercased() + operation.summary.dropFirst()) was sent by another brados already.")
            }
        }
    }
}
