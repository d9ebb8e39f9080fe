import ArgumentParser
import BradOSCore
import BradOSStorage

extension CoachCommand {
    /// Deletes a conversation on the server, then from the local copy.
    public struct Delete: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "delete", 
            abstract: "Delete a conversation on the server; once it is gone there, the cached copy goes too.",
            discussion: "Asks first on a terminal; scripts pass --yes. If the server fails, the cached copy stays as it was.\nExamples:\n  brados coach delete 1eca1011\n  brados coach delete 1eca1011 --yes")

        @Argument(help: "The conversation id, or its first characters (at least 4).", completion: .custom { _, _, _ in CoachPlugin.cachedConversationIDs() }) var id: String
        @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try CoachRepository.live(env)
            let resolved = try await repository.resolve(id)
            if !yes {
                guard env.io.isInputTerminal else { throw CoachError.notConfirmed(id: resolved, interactive: false) }
                let title = repository.cachedConversation(resolved).map { " '\($0.title ?? "untitled")' (\($0.messageCount) messages)" } ?? ""
                guard env.io.confirm("Delete conversation \(resolved)\(title) on the server?") else {
                    throw CoachError.notConfirmed(id: resolved, interactive: true)
                }
            }
            let deleted = try await repository.delete(resolved)
            if env.output.format == .json {
                struct Document: Encodable { var deleted: String; @NullWhenAbsent var title: String? }
                return try env.output.json(Document(deleted: resolved, title: deleted?.title))
            }
            env.output.line("Deleted conversation \(resolved)\(deleted?.title.map { " (\($0))" } ?? "").")
        }
    }
}
