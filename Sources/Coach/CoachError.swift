import BradOSCore
import BradOSErrors
import BradOSTerminal

/// Failures of the coach domain.
public enum CoachError: BradOSError, Equatable {
    /// No conversation with this id (or id prefix) on the server or in the cache.
    case conversationNotFound(id: String)
    /// An id prefix that matches several conversations: each as `1eca1011  Getting back into running`.
    case ambiguousID(prefix: String, matches: [String])
    /// `coach show --message`: no message of the conversation has this id (or starts with it).
    case messageNotFound(id: String, conversation: String)
    /// `coach show --message`: the start of an id that several of the conversation's messages have.
    case ambiguousMessageID(prefix: String)
    /// Offline, and nothing of this kind was ever cached.
    case notCached(what: String, reason: String)
    /// The session has no Supabase user id to scope the data with.
    case noUserID(profile: String)
    /// The Supabase project refused the API key (`coach.anon-key`).
    case apiKeyRejected(message: String)
    /// `coach delete` in a script without `--yes`, or the person said no.
    case notConfirmed(id: String, interactive: Bool)
    /// Supabase Realtime refused to let `--follow` join the conversation's changes.
    case realtimeRefused(String)

    public var summary: String {
        switch self {
        case let .conversationNotFound(id): "There is no conversation \(id)."
        case let .ambiguousID(prefix, matches):
            "The id '\(prefix)' starts \(matches.count) conversations' ids:\n" + matches.prefix(10).map { "    " + $0 }.joined(separator: "\n")
                + (matches.count > 10 ? "\n    … and \(matches.count - 10) more" : "")
        case let .messageNotFound(id, conversation): "Conversation \(conversation.prefix(8)) has no message \(id)."
        case let .ambiguousMessageID(prefix): "The id '\(prefix)' starts the ids of several messages of the conversation."
        case let .notCached(what, reason): "There is no cached copy of \(what) to use offline, and the server could not be asked (\(reason))."
        case let .noUserID(profile): "The session of profile '\(profile)' has no user id."
        case let .apiKeyRejected(message): "The Supabase project refused brados's API key (\(message))."
        case let .notConfirmed(id, interactive): interactive ? "Kept conversation \(id)." : "Deleting conversation \(id) needs confirmation."
        case let .realtimeRefused(reason): "Supabase Realtime refused to follow the conversation (\(SafeText.visible(reason)))."
        }
    }

    /// Without what the service said (a refusal's message, a network failure's details).
    public var logSummary: String {
        switch self {
        case let .notCached(what, _): "There is no cached copy of \(what) to use offline, and the server could not be asked."
        case .apiKeyRejected: "The Supabase project refused brados's API key."
        case .realtimeRefused: "Supabase Realtime refused to follow the conversation."
        default: summary
        }
    }

    public var recovery: String? {
        switch self {
        case .conversationNotFound: "List conversations and their ids with `brados coach conversations`."
        case .ambiguousID: "Give more characters of the id, as many as set it apart."
        case .messageNotFound: "`brados search` gives each message's id with the command that opens it."
        case .ambiguousMessageID: "Give more characters of the message's id."
        case .notCached: "Connect to the network and run the command once; it is then available offline."
        case .noUserID: "Sign in again with `brados auth login --service supabase`."
        case .apiKeyRejected: "Set the project's anon key: `brados config set coach.anon-key KEY` (Supabase dashboard → Settings → API)."
        case let .notConfirmed(_, interactive): interactive ? nil : "Pass --yes to delete without a question (scripts)."
        case .realtimeRefused: "Check that Realtime is enabled for the project's conversations and messages tables (Supabase dashboard → Database → Publications), or follow without it: `watch brados coach show ID --last 20`."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .conversationNotFound: .notFound
        case .ambiguousID, .ambiguousMessageID: .usage
        case .messageNotFound: .notFound
        case .notCached: .offline
        case .noUserID: .authRequired
        case .apiKeyRejected: .authRequired
        case let .notConfirmed(_, interactive): interactive ? .general : .usage
        case .realtimeRefused: .general
        }
    }
}
