import ArgumentParser
import BradOSCore

extension CoachCommand {
    /// Shows one conversation's messages.
    public struct Show: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "show", 
            abstract: "Show a conversation's messages in order, with their times (the cached copy when offline).", discussion: """
            A refresh downloads only what changed since the cached copy: new messages, and \
            which were deleted when the server's count differs. --full downloads every message again.
            Examples:
              brados coach show 1eca1011
              brados coach show 1eca1011 --last 20
              brados coach show 1eca1011 --full
            """)

        @Argument(help: "The conversation id, or its first characters (at least 4) once cached.", completion: .custom { _, _, _ in CoachPlugin.cachedConversationIDs() }) var id: String
        @Option(help: "Show only the last N messages (only they are read from the cache).") var last: Int?
        @Flag(help: "Download every message again instead of what changed.") var full = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if let last, last < 1 { throw ValidationError("--last must be at least 1.") }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            env.pageOutput()
            let store = try CoachRepository.live(env)
            let renderer = CoachRenderer(output: env.output)
            try await env.reader.show(try store.thread(id, last: last, full: full)) { thread, source in
                try renderer.conversation(thread, source: source)
            }
        }
    }
}
