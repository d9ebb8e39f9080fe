import ArgumentParser
import BradOSCore

extension CoachCommand {
    /// Lists conversations: from the server, or from the local copy when offline.
    public struct Conversations: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "conversations", 
            abstract: "List conversations, most recently updated first (the cached copy when offline).", discussion: """
            A refresh downloads only the conversations updated since the cached list, and \
            which were deleted when the server's count differs. --full downloads the whole list again.
            Examples:
              brados coach
              brados coach conversations --limit 5
              brados --offline coach --json
            """,
            aliases: ["list", "ls"])

        @Option(help: "Show at most this many conversations.") var limit: Int?
        @Flag(help: "Download the whole list again instead of what changed.") var full = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            env.pageOutput()
            let repository = try CoachRepository.live(env)
            let renderer = CoachRenderer(output: env.output)
            try await env.reader.show(repository.conversationList(full: full)) { conversations, source in
                try renderer.conversations(limit.map { Array(conversations.prefix($0)) } ?? conversations, source: source)
            }
        }
    }
}
