import ArgumentParser
import BradOSCore
import BradOSTerminal

extension NutritionCommand {
    /// `plan set target-weight|goal|activity`: change what the plan is computed from.
    public struct SetInput: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Change your target weight, goal or activity level, then recompute the plan; queued when offline.",
            discussion: """
            Each change is written to the pending queue before anything is sent, and shown at \
            once marked pending (`brados plan show`). Online it is sent with the queue and the \
            plan is recomputed; offline it waits for `brados plan sync`. A value the service \
            refuses is rolled back, and the command says why (exit 7).
            Examples:
              brados plan set target-weight 78
              brados plan set goal maintain
              brados plan set activity very_active
              brados --offline plan set goal gain_muscle
            """,
            subcommands: [TargetWeight.self, Goal.self, Activity.self])
        public init() {}

        /// Queues `change`, says it is pending, then (online) sends the queue and shows what came of it.
        /// - Throws: ``NutritionError`` (a refusal: exit 7), the failure that kept it queued when the user must act, ``StorageError``.
        static func run(_ change: NutritionInputChange, in env: AppEnvironment) async throws {
            let repository = try NutritionRepository.live(env)
            let operation = try repository.queue(change)
            let human = env.output.format == .human
            if human { env.output.line(env.output.styled("\(operation.summary(env.output.forms).capitalizedFirst) (pending)", .yellow)) }
            guard !env.isOffline else {
                if !human { return try NutritionRenderer(output: env.output).queuedOffline(operation, remaining: try repository.queue.all()) }
                return env.output.line("Queued: offline. `brados plan sync` sends it when you are back online; until then it shows as pending.")
            }
            let report = try await Spinner.run("Sending it and recomputing your plan", io: env.io, enabled: human) { try await repository.sync() }
            try NutritionRenderer(output: env.output).sync(report, queued: operation)
            if let dropped = report.dropped.first(where: { $0.operation.id == operation.id }) { throw dropped.error }
            if report.remaining.contains(where: { $0.id == operation.id }) {
                // Kept for later, as a weight is: fine for a failure the cache answers; an expired session is the user's to fix.
                if let error = report.stoppedBy, !repository.policy.answers(error) { throw error }
                if human { env.output.line("Still queued; `brados plan sync` sends it later.") }
            }
        }
    }
}

extension String {
    /// The text with its first letter capitalized: `Goal gain_muscle`.
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
