import ArgumentParser
import BradOSCore

extension VisitsCommand {
    /// Deletes a visit, optimistically.
    public struct Delete: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "delete", 
            abstract: "Delete a visit (leaves the cache at once; restored if the server fails).", discussion: """
            Interrupted (Ctrl-C) after the request was sent and before the server answered, the \
            outcome is not known: the visit stays out of the list, and the next refresh of the \
            visits finds out and says whether it was deleted.
            Examples:
              brados visits delete v_8f3a2c01
            """)

        @Argument(help: "The visit id.", completion: .custom { _, _, _ in VisitsPlugin.cachedVisitIDs() }) var id: String
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let human = env.output.format == .human
            let repository = try VisitsRepository.live(env)
            defer { repository.tellSettled(env.output.notice) }
            let deleted = try await repository.delete(
                id: id,
                onRemoved: { visit in if human { env.output.line("Deleting visit \(visit.id) (\(visit.place))…") } },
                onRestored: { env.output.notice("\(id) was not deleted; it is back in the cache.") })
            if human { env.output.line("Deleted visit \(id)\(deleted.map { " (\($0.place))" } ?? "").") }
            else { try env.output.json(["deleted": id]) }
        }
    }
}
