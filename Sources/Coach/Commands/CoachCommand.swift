import ArgumentParser
import BradOSCore

/// `brados coach`: coaching conversations, browsable offline.
public struct CoachCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "coach",
        abstract: "Coach conversations and messages, kept in SQLite for offline browsing.",
        discussion: """
        Conversations, messages and your context profile come from the coach's Supabase \
        backend and are saved locally on every fetch. A refresh downloads only what changed \
        since the local copy (--full: everything). With --offline, or when the server \
        cannot be reached, the same commands read the local copy and say how old it is. \
        The context profile counts as fresh for `coach.context-ttl` (1 hour): no request \
        is made within it.
        Ids: the first 8 characters of a conversation id are enough once it is cached.
        Examples:
          brados coach                               conversations, most recent first
          brados coach show 1eca1011                 every message of a conversation
          brados coach show 1eca1011 --last 20       only the last 20 messages
          brados --offline coach show 1eca1011       the cached copy, no network
          brados coach context                       values, goals and situation
          brados coach delete 1eca1011 --yes         delete on the server, then here
          brados config set coach.anon-key KEY       your Supabase project's anon key
        """,
        subcommands: [Conversations.self, Show.self, Delete.self, Context.self, Revalidate.self],
        defaultSubcommand: Conversations.self)

    public init() {}
}
