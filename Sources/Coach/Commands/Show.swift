import ArgumentParser
import BradOSCore

extension CoachCommand {
    /// Shows one conversation's messages.
    public struct Show: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "show", 
            abstract: "Show a conversation's messages in order, with their times (the cached copy when offline).", discussion: "Examples:\n  brados coach show 1eca1011\n  brados coach show 1eca1011 --last 20")

        @Argument(help: "The conversation id, or its first characters (at least 4) once cached.", completion: .custom { _, _, _ in CoachPlugin.cachedConversationIDs() }) var id: String
        @Option(help: "Show only the last N messages.") var last: Int?
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if let last, last < 1 { throw ValidationError("--last must be at least 1.") }
        }

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try CoachStore.live(env)
            let renderer = CoachRenderer(output: env.output)
            try await env.reader.show(try store.thread(id)) { thread, source in
                let shown = last.map { thread.messages.suffix($0) } ?? thread.messages[...]
                try renderer.conversation(thread.conversation, messages: thread.messages, shown: shown, source: source)
            }
        }
    }
}
