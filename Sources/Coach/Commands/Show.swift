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
            let result = try await Spinner.run("Fetching messages", io: env.io, enabled: env.output.format == .human) {
                try await store.conversation(id)
            }
            let shown = last.map { result.messages.suffix($0) } ?? result.messages[...]
            try CoachRenderer(output: env.output).conversation(result.conversation, messages: result.messages, shown: shown, source: result.source)
        }
    }
}
