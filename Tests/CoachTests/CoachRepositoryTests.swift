import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
@testable import Coach
import Foundation
import TestSupport
import Testing

@Suite("Coach logic: remote first, cache fallback, context TTL")
struct CoachRepositoryTests {
    struct Setup {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let api: FakeCoachAPI
        let database: CoachCache

        init(api: FakeCoachAPI = FakeCoachAPI(
            conversations: [Fixtures.conversation(1, messages: 4, updated: 20), Fixtures.conversation(2, messages: 2, updated: 10)],
            messages: [Fixtures.conversationID(1): Fixtures.messages(1, count: 4), Fixtures.conversationID(2): Fixtures.messages(2, count: 2)],
            profile: Fixtures.profile)) throws {
            self.api = api
            database = try Fixtures.database(dir)
        }

        func repository(offline: Bool = false, brokenDatabase: Bool = false) -> CoachRepository {
            let database = self.database
            let api = self.api
            return CoachRepository(database: { if brokenDatabase { throw StorageError.database(path: "x", detail: "disk I/O error") }; return database },
                              offline: offline, now: clock.dateProvider, userID: { Fixtures.user },
                              api: { if offline { throw NetworkError.offlineMode }; return api })
        }
    }

    @Test("a whole conversation is printed from the store as it is read: the same text and JSON as from the messages in hand", arguments: [OutputFormat.human, .json])
    func streamedThread(format: OutputFormat) async throws {
        let setup = try Setup(api: FakeCoachAPI(conversations: [Fixtures.conversation(1, messages: 1_200, updated: 20)],
                                                messages: [Fixtures.conversationID(1): Fixtures.messages(1, count: 1_200)], profile: Fixtures.profile))
        _ = try await setup.repository().conversation(Fixtures.conversationID(1))
        let read = try #require(try await setup.repository(offline: true).thread(Fixtures.conversationID(1)).stored()).value
        #expect(read.stored != nil && read.messages.isEmpty && read.total == 1_200, "read whole only as it is shown")
        let inHand = ConversationThread(conversation: read.conversation, messages: Fixtures.messages(1, count: 1_200), total: 1_200)
        let streamed = CapturingIO(environment: [:]), whole = CapturingIO(environment: [:])
        try CoachRenderer(output: Output(io: streamed, format: format)).conversation(read, source: .network)
        try CoachRenderer(output: Output(io: whole, format: format)).conversation(inHand, source: .network)
        #expect(streamed.stdout == whole.stdout)
        #expect(streamed.stdout.components(separatedBy: "message 1199").count == 2, "the last message is there once")
        #expect(try read.allMessages() == Fixtures.messages(1, count: 1_200))
    }

    @Test("a fetch updates the store; offline, the same models come from it, marked with their age")
    func offlineFallback() async throws {
        let setup = try Setup()
        let online = try await setup.repository().conversations()
        #expect(online.source == .network)
        _ = try await setup.repository().conversation(Fixtures.conversationID(1))
        setup.clock.advance(by: .seconds(7200))
        let offline = try await setup.repository(offline: true).conversations()
        #expect(offline.conversations == online.conversations)
        // A copy of conversations is never out of date by its age (new messages come, old ones stay): not stale.
        #expect(offline.source.kind == .cache && offline.source.age == 7200 && !offline.source.stale)
        let thread = try await setup.repository(offline: true).conversation(String(Fixtures.conversationID(1).prefix(8)))
        #expect(thread.messages == Fixtures.messages(1, count: 4))
        #expect(thread.source.kind == .cache && thread.source.age == 7200 && !thread.source.stale)
        // Messages never fetched: a clear "not cached" error, exit code "needs network".
        let error = await #expect(throws: CoachError.self) { try await setup.repository(offline: true).conversation(Fixtures.conversationID(2)) }
        guard case .notCached? = error else { Issue.record("expected notCached, got \(String(describing: error))"); return }
        #expect(error?.kind == .offline)
    }

    @Test("a failing server falls back to the cache; with nothing cached the server's error is reported")
    func serverFailureFallsBack() async throws {
        let setup = try Setup()
        setup.api.failure = NetworkError.http(status: 503, method: "GET", path: "/rest/v1/conversations", message: nil, retryAfter: nil)
        await #expect(throws: NetworkError.self) { try await setup.repository().conversations() }
        setup.api.failure = nil
        _ = try await setup.repository().conversations()
        setup.api.failure = NetworkError.unreachable(host: "127.0.0.1", reason: "connection refused")
        let fallback = try await setup.repository().conversations()
        #expect(fallback.conversations.count == 2)
        #expect(fallback.source.kind == .cache && !fallback.source.stale)
        #expect(fallback.source.reason?.contains("Could not reach") == true)
        #expect(fallback.source.notice?.hasPrefix("could not check for new conversations") == true, "\(fallback.source.notice ?? "")")
        // "Not found" from the server is an answer, not a failure to fall back from.
        setup.api.failure = NetworkError.http(status: 404, method: "GET", path: "/rest/v1/messages", message: nil, retryAfter: nil)
        await #expect(throws: NetworkError.self) { try await setup.repository().conversation(Fixtures.conversationID(1)) }
    }

    @Test("an expired session or a refused key is reported, not hidden behind the cached copy")
    func authFailuresDoNotFallBack() async throws {
        let setup = try Setup()
        _ = try await setup.repository().conversations()
        setup.api.failure = AuthError.sessionExpired(profile: "default")
        await #expect(throws: AuthError.self) { try await setup.repository().conversations() }
        setup.api.failure = CoachError.apiKeyRejected(message: "Invalid API key")
        await #expect(throws: CoachError.self) { try await setup.repository().conversations() }
        // Rate limiting is a server condition: the cached copy answers.
        setup.api.failure = NetworkError.http(status: 429, method: "GET", path: "/rest/v1/conversations", message: nil, retryAfter: .seconds(60))
        #expect(try await setup.repository().conversations().conversations.count == 2)
    }

    @Test("a conversation the server no longer has: not found, and the cached copy goes")
    func showDeletedElsewhere() async throws {
        let setup = try Setup()
        _ = try await setup.repository().conversations()
        _ = try await setup.repository().conversation(Fixtures.conversationID(1))
        setup.api.conversationList.removeAll { $0.id == Fixtures.conversationID(1) }
        await #expect(throws: CoachError.self) { try await setup.repository().conversation(Fixtures.conversationID(1)) }
        #expect(try setup.database.conversation(id: Fixtures.conversationID(1)) == nil)
        #expect(try setup.database.counts().messages == 0)
    }

    @Test("a store that cannot be written never fails the command: the remote data are shown")
    func cacheWriteFailureIsNotFatal() async throws {
        let setup = try Setup()
        let result = try await setup.repository(brokenDatabase: true).conversations()
        #expect(result.conversations.count == 2 && result.source == .network)
        let profile = try await setup.repository(brokenDatabase: true).contextProfile()
        #expect(profile.profile == Fixtures.profile)
    }

    @Test("the context profile is fresh for an hour: no request within it, a fetch after it")
    func contextTTL() async throws {
        let setup = try Setup()
        _ = try await setup.repository().contextProfile()
        #expect(setup.api.calls == ["context"])
        setup.clock.advance(by: .seconds(3599))
        let fresh = try await setup.repository().contextProfile()
        #expect(fresh.profile == Fixtures.profile)
        #expect(fresh.source == .cache(age: 3599))
        #expect(setup.api.calls == ["context"])
        setup.clock.advance(by: .seconds(2))
        _ = try await setup.repository().contextProfile()
        #expect(setup.api.calls == ["context", "context"])
        _ = try await setup.repository().contextProfile(refresh: true)
        #expect(setup.api.calls.count == 3)
        // Past the hour and offline: the stale copy, with its age.
        setup.clock.advance(by: .seconds(7200))
        let stale = try await setup.repository(offline: true).contextProfile()
        #expect(stale.source.kind == .cache && stale.source.age == 7200 && stale.source.reason == DataSource.offlineReason && stale.source.stale)
    }

    @Test("a remote delete that fails leaves the cache untouched; a confirmed one removes the conversation and its messages")
    func deletion() async throws {
        let setup = try Setup()
        _ = try await setup.repository().conversations()
        _ = try await setup.repository().conversation(Fixtures.conversationID(1))
        let before = try setup.database.counts()
        setup.api.failure = NetworkError.http(status: 500, method: "DELETE", path: "/rest/v1/conversations", message: nil, retryAfter: nil)
        await #expect(throws: NetworkError.self) { try await setup.repository().delete(Fixtures.conversationID(1)) }
        #expect(try setup.database.counts() == before)
        await #expect(throws: NetworkError.self) { try await setup.repository(offline: true).delete(Fixtures.conversationID(1)) }
        #expect(try setup.database.counts() == before)
        setup.api.failure = nil
        let deleted = try await setup.repository().delete(String(Fixtures.conversationID(1).prefix(8)))
        #expect(deleted?.id == Fixtures.conversationID(1))
        #expect(try setup.database.counts() == (1, 0, 0))
        // Already gone on the server but still cached (an earlier attempt whose answer was lost):
        // counts as deleted, and the cached copy goes.
        try setup.database.upsertConversations([Fixtures.conversation(1)], at: Fixtures.base)
        #expect(try await setup.repository().delete(Fixtures.conversationID(1))?.id == Fixtures.conversationID(1))
        #expect(try setup.database.conversation(id: Fixtures.conversationID(1)) == nil)
        // Neither the server nor the cache has it: not found.
        await #expect(throws: CoachError.self) { try await setup.repository().delete(Fixtures.conversationID(1)) }
    }

    @Test("short ids: a cached one at once; one not cached is looked up on the server; an ambiguous one lists the candidates with their titles")
    func shortIDs() async throws {
        let setup = try Setup(api: FakeCoachAPI(conversations: [
            Fixtures.conversation(0x1234_0001, title: "Getting back into running"), Fixtures.conversation(0x1234_0002, title: "Asking for a raise"),
            Fixtures.conversation(0x5678_0000),
        ]))
        // A new profile: nothing cached, and offline nothing to ask.
        await #expect(throws: CoachError.conversationNotFound(id: "5678")) { try await setup.repository(offline: true).resolve("5678") }
        // Online, the conversation list is brought up to date, then looked in.
        #expect(try await setup.repository().resolve("5678") == Fixtures.conversationID(0x5678_0000))
        let repository = setup.repository(offline: true)
        #expect(try await repository.resolve("5678") == Fixtures.conversationID(0x5678_0000), "cached now")
        let ambiguous = await #expect(throws: CoachError.self) { try await repository.resolve("1234") }
        #expect(ambiguous?.summary.contains("12340001  Getting back into running") == true, "\(ambiguous?.summary ?? "")")
        #expect(ambiguous?.summary.contains("12340002  Asking for a raise") == true)
        #expect(ambiguous.map { ExitStatus.code(for: $0) } == 64)
        await #expect(throws: CoachError.conversationNotFound(id: "9999")) { try await setup.repository().resolve("9999") }
        await #expect(throws: CoachError.self) { try await repository.resolve("12") }
        #expect(try await repository.resolve(Fixtures.conversationID(42).uppercased()) == Fixtures.conversationID(42))
    }

    @Test("--message opens a long conversation at one message: the 5 before, it (marked), the 5 after, and how many more on each side")
    func aroundAMessage() async throws {
        let setup = try Setup(api: FakeCoachAPI(conversations: [Fixtures.conversation(1, messages: 2_400, updated: 20)],
                                                messages: [Fixtures.conversationID(1): Fixtures.messages(1, count: 2_400)], profile: Fixtures.profile))
        _ = try await setup.repository().conversation(Fixtures.conversationID(1))
        let target = Fixtures.messageID(1, 1_000)
        let thread = try #require(try await setup.repository(offline: true).thread("00000001", around: String(target.prefix(13))).stored()).value
        #expect(thread.messages.map(\.id) == (995...1_005).map { Fixtures.messageID(1, $0) })
        #expect(thread.marked == target && thread.earlier == 995 && thread.later == 1_394)
        let io = CapturingIO(environment: [:])
        try CoachRenderer(output: Output(io: io, format: .human)).conversation(thread, source: .cache(age: 1, noun: "messages"))
        let lines = io.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("… 995 earlier messages") })
        #expect(lines.filter { $0.hasPrefix("▶ ") }.count == 1)
        #expect(lines.last?.hasPrefix("… 1394 later messages") == true, "\(lines.suffix(2))")
        // A message the copy does not hold: no cached answer (the server is asked, and says so).
        #expect(try await setup.repository(offline: true).thread("00000001", around: "ffffffff").stored() == nil)
        await #expect(throws: CoachError.messageNotFound(id: "ffffffff", conversation: Fixtures.conversationID(1))) {
            _ = try await setup.repository().conversation(Fixtures.conversationID(1))
            _ = try await setup.repository().thread("00000001", around: "ffffffff").fetch { _, _ in }
        }
    }
}
