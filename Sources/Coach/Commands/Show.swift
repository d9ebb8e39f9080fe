import ArgumentParser
import BradOSCore
import BradOSNetworking

extension CoachCommand {
    /// Shows one conversation's messages.
    public struct Show: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "show", 
            abstract: "Show a conversation's messages in order, with their times (the cached copy when offline).", discussion: """
            A refresh downloads only what changed since the cached copy: new messages, and \
            which were deleted when the server's count differs. --full downloads every message again.
            --follow then keeps printing each new, changed or deleted message as it happens \
            (Supabase Realtime; the server is not polled), keeping the cache up to date, until \
            Ctrl-C. Each message newer than those shown is printed once, in order, whichever \
            brados stored it (a `sync --watch` beside it included). After any gap (a lost \
            connection, a lost event) it catches up before going on, so a later \
            `coach show --offline` shows what was followed. With --json it prints one event a \
            line (NDJSON): {"event":"message"|"added"|"changed"|"deleted"|"conversation-changed"|\
            "conversation-deleted"|"reconnecting", …}.
            Examples:
              brados coach show 1eca1011
              brados coach show 1eca1011 --last 20
              brados coach show 1eca1011 --message 8f3a2c01
              brados coach show 1eca1011 --full
              brados coach show 1eca1011 --follow
              brados coach show 1eca1011 --follow --json | jq -c 'select(.event == "added") | .message.content'
            """)

        @Argument(help: "The conversation id, or its first characters (at least 4).", completion: .custom { _, _, _ in CoachPlugin.cachedConversationIDs() }) var id: String
        @Option(help: "Show only the last N messages (only they are read from the cache).") var last: Int?
        @Option(help: ArgumentHelp("Open the conversation at this message (its id or first characters, as `brados search` gives it): the 5 messages before it, it (marked), and the 5 after.",
                                   valueName: "message-id"))
        var message: String?
        @Flag(help: "Download every message again instead of what changed.") var full = false
        @Flag(name: [.short, .long], help: "Keep printing new, changed and deleted messages as they happen, until Ctrl-C (shows the last 10 first unless --last says otherwise).")
        var follow = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if let last, last < 1 { throw ValidationError("--last must be at least 1.") }
            if message != nil && (last != nil || follow) { throw ValidationError("--message shows the messages around one; it cannot go with --last or --follow.") }
            if follow && global.offline { throw ValidationError("--follow needs the network; drop --offline (or unset BRADOS_OFFLINE).") }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try CoachRepository.live(env)
            let renderer = CoachRenderer(output: env.output)
            guard follow else {
                env.pageOutput()
                try await env.reader.show(try await repository.thread(id, last: last, around: message, full: full)) { thread, source in
                    try renderer.conversation(thread, source: source)
                }
                return
            }
            if env.isOffline { throw NetworkError.offlineMode }
            let (thread, source) = try await env.reader.answer(try await repository.thread(id, last: last ?? 10, full: full))
            try renderer.followStart(thread, source: source)
            guard let realtime = repository.realtime else { throw CoachError.realtimeRefused("this profile's server has no Realtime") }
            let access = try await realtime()
            try await repository.follow(thread.conversation.id, shown: thread.messages, access: access) { event in renderer.follow(event) }
        }
    }
}
