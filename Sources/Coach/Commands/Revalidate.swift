import ArgumentParser
import BradOSCore

extension CoachCommand {
    /// The background half of a coach read: refreshes what a command showed from the cache
    /// (the conversation list, one conversation's messages, or the context profile), then
    /// exits. Hidden; started by ``CacheReader``, one at a time per resource.
    public struct Revalidate: EnvironmentCommand {
        public static let configuration = CommandConfiguration(
            commandName: "revalidate", abstract: "Refresh cached coach data in the background (used by the read commands).",
            discussion: "Examples:\n  brados coach revalidate\n  brados coach revalidate --conversation 1eca1011-…", shouldDisplay: false)

        @Option(help: ArgumentHelp("One conversation's messages (a full id).", valueName: "id")) var conversation: String?
        @Flag(help: "The context profile.") var context = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if conversation != nil && context { throw ValidationError("--conversation and --context cannot go together.") }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try CoachRepository.live(env)
            if let conversation {
                let thread = try await repository.thread(conversation, last: 1)
                try await thread.backgroundRefresh?.stamp?.runBehind(now: env.now) { _ = try await thread.fetch { _, _ in } }
            } else if context {
                let profile = repository.context()
                try await profile.backgroundRefresh?.stamp?.runBehind(now: env.now) { _ = try await profile.fetch { _, _ in } }
            } else {
                let list = repository.conversationList
                try await list.backgroundRefresh?.stamp?.runBehind(now: env.now) { _ = try await list.fetch { _, _ in } }
            }
        }
    }
}
