import ArgumentParser
import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Logging
import Synchronization

extension Service {
    /// Supabase: Auth + PostgREST (`server.supabase`).
    public static let supabase = Service(rawValue: "supabase")
}

/// The coach domain: coaching conversations and messages from Supabase (PostgREST +
/// Supabase Auth), kept in SQLite for offline browsing.
public struct CoachPlugin: DomainPlugin, FollowsLive, FeedsSearch, ShowsToday, ShapesArchives {
    public static let domainName = "coach"
    public static let anonKeyKey = "coach.anon-key"
    public static let contextTTLKey = "coach.context-ttl"
    /// The anon key of the reference server (`brados-server --anon-key`).
    public static let referenceAnonKey = "brados-reference-anon-key"

    public init() {}
    public var name: String { Self.domainName }
    public var summary: String { "Coach conversations from Supabase, kept in SQLite for offline browsing." }
    public var command: any ParsableCommand.Type { CoachCommand.self }

    /// `coach.context-ttl`: 0s means "always ask first".
    public static let contextTTLSetting = DurationSetting(name: contextTTLKey, summary: "How long a cached context profile counts as fresh",
                                                          environmentVariable: "BRADOS_COACH_CONTEXT_TTL", defaultValue: "1h", allowsZero: true)

    /// Conversations and messages: the stored copy at once, refreshed behind every read (by
    /// what changed: a read costs a few small requests), the copy answering a failure; what
    /// came since shows on the next read, or live with `coach show --follow`.
    public static let cachePolicy = CachePolicy(freshFor: nil, revalidation: .behind)
    /// The context profile: fresh for the TTL with no request; then fetched first.
    public static func contextPolicy(ttl: Duration) -> CachePolicy { CachePolicy(freshFor: ttl, revalidation: .never) }

    public var configKeys: [ConfigKey] {
        [ConfigKey(name: Self.anonKeyKey, summary: "The Supabase project's anon API key (sent as `apikey`)",
                   environmentVariable: "BRADOS_COACH_ANON_KEY", defaultValue: Self.referenceAnonKey,
                   validate: { $0.isEmpty ? "a non-empty key" : nil }),
         Self.contextTTLSetting.configKey,
         ConfigKey(name: Self.syncMessagesKey, summary: "Whose messages `brados sync` keeps for reading offline: all (newest conversations first, within coach.sync-budget) or opened",
                   environmentVariable: "BRADOS_COACH_SYNC_MESSAGES", defaultValue: CoachRepository.SyncedMessages.all.rawValue,
                   validate: { CoachRepository.SyncedMessages(rawValue: $0) == nil ? "all or opened" : nil }),
         ConfigKey(name: Self.syncBudgetKey, summary: "How much message text `brados sync` keeps at most; the oldest conversations' messages are left out first",
                   environmentVariable: "BRADOS_COACH_SYNC_BUDGET", defaultValue: "100MB", validate: ConfigKey.sizeValidator)]
    }

    static let syncMessagesKey = "coach.sync-messages"
    static let syncBudgetKey = "coach.sync-budget"

    /// Supabase (Auth + PostgREST), with its own accounts.
    public var services: [ServiceDescription] {
        [ServiceDescription(.supabase, summary: "a Supabase project (coach: Auth + PostgREST)",
                            account: { settings, now in SupabaseAccountProtocol(anonKey: Self.anonKey(settings), now: now) })]
    }
    public var syncDescription: String {
        "upserts the conversation list and brings every conversation's messages up to date for reading offline, newest first, within coach.sync-budget (coach.sync-messages opened: only those opened before)"
    }

    /// Files and bytes of the domain's folders; entries are the cached messages.
    public func stats(in profile: ProfileScope) throws -> CacheStats {
        var stats = CacheStats.measure(folders(in: profile))
        stats.entries = CacheStats.count("SELECT COUNT(*) FROM message", in: Self.databaseURL(profile))
        return stats
    }

    /// An imported `coach.sqlite` is rebuilt (never trusted as a file); any other database is refused.
    public func prepareImport(cache: URL, data: URL, context: ImportContext) throws {
        try ImportedDatabases.rebuild(domain: name, cache: cache, data: data,
                                      databases: ["data/coach.sqlite": { try CoachCache.rebuildImported($0, label: $1) }])
    }

    public var searchDescription: String { "message text and conversation titles" }

    /// The cached conversations' titles and messages (nothing when no store exists yet).
    public func searchDocuments(in profile: ProfileScope, into feed: SearchFeed) throws {
        let url = Self.databaseURL(profile)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try CoachCache.feedSearch(at: url, feed)
    }

    /// The conversation updated last: its title, its last message's first line, its age.
    /// Read alone from the store (one query, nothing opened for writing); with `--refresh`,
    /// the list is fetched first through its policy.
    public func todaySection(_ context: TodayContext) async throws -> TodaySection? {
        let url = Self.databaseURL(context.env.profile)
        var failure: String?
        if context.refresh {
            let list = try CoachRepository.live(context.env).conversationList(full: false)
            failure = await context.read(list)?.refreshFailure
        }
        let userID = context.env.credentials.load().credential(for: .supabase, dedicated: true)?.userID
        // Nothing is created to say that nothing is cached.
        guard FileManager.default.fileExists(atPath: url.path), let latest = try CoachCache.latest(at: url, userID: userID) else {
            return .nothingCached("Coach", fill: "brados coach conversations")
        }
        let conversation = latest.conversation, last = latest.last
        let title = conversation.title ?? "Untitled conversation"
        var lines = [context.output.styled(title, .bold) + " · " + Format.count(conversation.messageCount, "message") + " · "
            + context.output.styled("updated \(Format.ago(context.now.timeIntervalSince(conversation.updatedAt)))", .dim)]
        if let last {
            lines.append((last.role == .user ? "you: " : "coach: ") + Format.firstLine(last.content, 100))
        }
        lines.append(context.output.styled("brados coach show \(conversation.id)", .cyan))
        var json: [String: JSONValue] = ["conversation": .object([
            "id": .string(conversation.id), "title": .string(title), "updatedAt": .string(JSONCoding.string(from: conversation.updatedAt)),
            "messageCount": .number(Double(conversation.messageCount)),
        ]), "conversations": .number(Double(latest.conversations))]
        if let last {
            json["lastMessage"] = .object(["role": .string(last.role.rawValue), "firstLine": .string(Format.firstLine(last.content, 200)),
                                           "createdAt": .string(JSONCoding.string(from: last.createdAt))])
        }
        if let failure { lines.append(context.output.styled("could not refresh: \(failure)", .yellow)) }
        // Coach copies have no TTL (refreshed behind on every read), so none is called stale here.
        return TodaySection(title: "Coach", lines: lines, json: json)
    }

    /// Upserts the conversation list (messages are fetched when a conversation is opened).
    /// A failure is the server's own error (a sync never settles for the cached copy).
    public func sync(_ env: AppEnvironment, options: SyncOptions) async throws -> String? {
        let repository = try CoachRepository.live(env)
        let conversations = try await repository.fetchConversations()
        let setting = env.settings.resolve(Self.syncMessagesKey)
        guard let which = setting.value.flatMap(CoachRepository.SyncedMessages.init(rawValue:)) else {
            throw ConfigError.invalidValue(key: Self.syncMessagesKey, value: setting.value ?? "", expected: "all or opened")
        }
        guard which == .all else { return "\(conversations.count) conversations" }
        let budgetSetting = env.settings.resolve(Self.syncBudgetKey)
        guard let budget = budgetSetting.value.flatMap(parseByteSize), budget > 0 else {
            throw ConfigError.invalidValue(key: Self.syncBudgetKey, value: budgetSetting.value ?? "", expected: "a size such as 100MB or 1GB")
        }
        let messages = try await repository.syncMessages(conversations, budget: Int(budget))
        return "\(conversations.count) conversations; \(messages.summary)"
    }

    public var watchDescription: String { "conversations, and the messages of those cached, over Supabase Realtime" }

    /// Follows the user's conversations, and the messages of those cached, over Supabase Realtime.
    public func watch(_ env: AppEnvironment, tell: @escaping @Sendable (WatchEvent) -> Void) async throws {
        let repository = try CoachRepository.live(env)
        guard let realtime = repository.realtime else { throw CoachError.realtimeRefused("this profile's server has no Realtime") }
        try await repository.watch(access: try await realtime(), tell: tell)
    }

    /// Cached conversation ids, most recent first, for shell completion (local files only);
    /// zsh and fish show each with its title.
    public static func cachedConversationIDs() -> [String] {
        let rows = CompletionValues.strings("SELECT remoteId || char(1) || coalesce(title, '') FROM conversation ORDER BY updatedAt DESC",
                                            in: databaseURL(CompletionValues.scope().profile))
        return CompletionValues.described(rows.compactMap { row in
            let parts = row.split(separator: "\u{1}", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let id = parts.first, Conversation.idRule.isValid(id) else { return nil }
            return (id, parts.count > 1 ? parts[1] : "")
        })
    }

    static func anonKey(_ settings: Settings) -> String { settings.resolve(anonKeyKey).value ?? referenceAnonKey }

    /// `<profile data>/coach/coach.sqlite`.
    public static func databaseURL(_ profile: ProfileScope) -> URL {
        profile.dataDirectory(for: domainName).appendingPathComponent("coach.sqlite")
    }
}
