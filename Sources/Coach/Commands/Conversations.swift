import ArgumentParser
import BradOSCore

extension CoachCommand {
    /// Lists conversations: from the server, or from the local copy when offline.
    public struct Conversations: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "conversations", 
            abstract: "List conversations, most recently updated first (the cached copy when offline).", discussion: "Examples:\n  brados coach\n  brados coach conversations --limit 5\n  brados --offline coach --json",
            aliases: ["list", "ls"])

        @Option(help: "Show at most this many conversations.") var limit: Int?
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
        }

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try CoachStore.live(env)
            let result = try await Spinner.run("Fetching conversations", io: env.io, enabled: env.output.format == .human) {
                try await store.conversations()
            }
            let shown = limit.map { Array(result.conversations.prefix($0)) } ?? result.conversations
            try CoachRenderer(output: env.output).conversations(shown, source: result.source)
        }
    }
}
