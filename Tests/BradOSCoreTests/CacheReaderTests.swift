import BradOSAuth
@testable import BradOSCore
import BradOSNetworking
import Foundation
import Synchronization
import TestSupport
import Testing

/// The one read mechanism, against a resource the test controls (what is stored, how old,
/// what a fetch returns or throws), in every state of a policy and both modes.
@Suite("CacheReader: the one read mechanism")
struct CacheReaderTests {
    /// A resource of one string: its stored copy, its fetch and a count of fetches.
    final class Resource: CachedResource, @unchecked Sendable {
        let noun = "notes"
        let policy: CachePolicy
        let lock = Mutex<(stored: CachedEntry<String>?, fetches: Int)>((nil, 0))
        let fetched: @Sendable () throws -> String
        let refresh: BackgroundRefresh?

        init(policy: CachePolicy, stored: CachedEntry<String>?, refresh: BackgroundRefresh? = nil, fetched: @escaping @Sendable () throws -> String) {
            self.policy = policy
            self.fetched = fetched
            self.refresh = refresh
            lock.withLock { $0.stored = stored }
        }

        var fetches: Int { lock.withLock { $0.fetches } }
        func stored() -> CachedEntry<String>? { lock.withLock { $0.stored } }
        func fetch(progress: @escaping FetchProgress) async throws -> String {
            lock.withLock { $0.fetches += 1 }
            let value = try fetched()
            lock.withLock { $0.stored = CachedEntry(value, savedAt: now) }
            return value
        }
        var backgroundRefresh: BackgroundRefresh? { refresh }
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    var now: Date { Self.now }
    /// Fresh for an hour, revalidated behind after five minutes (visits' shape).
    static let behind = CachePolicy(freshFor: .seconds(3600), revalidation: .behind, revalidateAfter: .seconds(300))

    func reader(_ mode: CacheReader.Mode, offline: Bool = false, notices: Notices = Notices(), started: Started? = nil,
                wait: Duration = .zero, clock: any Clock<Duration> = ContinuousClock()) -> CacheReader {
        let start: (@Sendable ([String]) throws -> Void)? = started.map { started in { @Sendable command in started.add(command) } }
        return CacheReader(mode: mode, offline: offline, now: { Self.now }, notice: { notices.add($0) }, startInBackground: start,
                           wait: wait, clock: clock)
    }

    final class Notices: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    final class Started: Sendable {
        let commands = Mutex<[[String]]>([])
        func add(_ command: [String]) { commands.withLock { $0.append(command) } }
        var all: [[String]] { commands.withLock { $0 } }
    }

    @Test("nothing stored: fetched and shown from the network; offline, the resource's error and no fetch")
    func nothingStored() async throws {
        let resource = Resource(policy: Self.behind, stored: nil) { "live" }
        let answer = try await reader(.script).answer(resource)
        #expect(answer.value == "live" && answer.source == .network && resource.fetches == 1)
        let offline = Resource(policy: Self.behind, stored: nil) { "live" }
        await #expect(throws: NetworkError.self) { try await reader(.script, offline: true).answer(offline) }
        #expect(offline.fetches == 0)
    }

    @Test("fresh: the stored copy, no request, its age said")
    func fresh() async throws {
        let resource = Resource(policy: Self.behind, stored: CachedEntry("kept", savedAt: now.addingTimeInterval(-60))) { "live" }
        let (outcome, shown) = try await reader(.script).show(resource) { _, _ in }
        #expect(outcome == .cached(changed: nil) && shown == "kept" && resource.fetches == 0)
        let answer = try await reader(.script).answer(resource)
        #expect(answer.source == .cache(age: 60, noun: "notes"))
    }

    @Test("due a refresh in a script: the stored copy at once and one detached refresh, not a request in the process")
    func dueInScript() async throws {
        let started = Started()
        let resource = Resource(policy: Self.behind, stored: CachedEntry("kept", savedAt: now.addingTimeInterval(-600)),
                                refresh: BackgroundRefresh(command: ["notes", "revalidate"], stamp: nil)) { "live" }
        let (outcome, shown) = try await reader(.script, started: started).show(resource) { _, _ in }
        #expect(outcome == .refreshingInBackground && shown == "kept")
        #expect(started.all == [["notes", "revalidate"]] && resource.fetches == 0)
    }

    @Test("a copy due a refresh or stale, either mode: shown at once, the refresh in the background, never a request in the process",
          arguments: [CacheReader.Mode.interactive, .script], [600.0, 7200])
    func behindInEveryMode(mode: CacheReader.Mode, age: Double) async throws {
        let started = Started(), notices = Notices()
        let resource = Resource(policy: Self.behind, stored: CachedEntry("kept", savedAt: now.addingTimeInterval(-age)),
                                refresh: BackgroundRefresh(command: ["notes", "revalidate"], stamp: nil)) {
            Issue.record("fetched in the process")
            return "live"
        }
        var sources: [DataSource] = []
        let (outcome, shown) = try await reader(mode, notices: notices, started: started).show(resource) { _, source in sources.append(source) }
        #expect(outcome == .refreshingInBackground && shown == "kept" && resource.fetches == 0)
        #expect(started.all == [["notes", "revalidate"]])
        #expect(sources.count == 1 && sources[0].refreshing && sources[0].stale == (age > 3600))
        // A stale copy is said, with its age; a fresh one due a refresh is not.
        #expect(notices.all == (age > 3600 ? ["showing notes cached 2 h ago, out of date; refreshing them in the background for your next command."] : []),
                "\(notices.all)")
    }

    @Test("with refresh.wait: a server slower than it leaves the copy shown and the refresh behind; a quicker one is shown instead")
    func waitBudget() async throws {
        // The manual clock's sleep returns at once: the budget is spent before the server answers.
        let clock = ManualClock()
        let started = Started()
        let slow = SlowResource(stored: CachedEntry("kept", savedAt: now.addingTimeInterval(-7200)))
        let (outcome, shown) = try await reader(.script, started: started, wait: .seconds(2), clock: clock).show(slow) { _, _ in }
        #expect(outcome == .refreshingInBackground && shown == "kept" && started.all.count == 1)
        #expect(clock.sleeps == [.seconds(2)])
        let quick = Resource(policy: Self.behind, stored: CachedEntry("kept", savedAt: now.addingTimeInterval(-7200)),
                             refresh: BackgroundRefresh(command: ["notes", "revalidate"], stamp: nil)) { "live" }
        let answered = try await reader(.script, started: Started(), wait: .seconds(2)).show(quick) { _, _ in }
        #expect(answered.outcome == .fetched && answered.shown == "live")
    }

    /// A resource whose fetch never ends (a server that does not answer), until cancelled.
    final class SlowResource: CachedResource, @unchecked Sendable {
        let noun = "notes"
        let policy = CacheReaderTests.behind
        let entry: CachedEntry<String>
        init(stored: CachedEntry<String>) { entry = stored }
        func stored() -> CachedEntry<String>? { entry }
        func fetch(progress: @escaping FetchProgress) async throws -> String {
            try await Task.sleep(for: .seconds(3600))
            return "late"
        }
        var backgroundRefresh: BackgroundRefresh? { BackgroundRefresh(command: ["notes", "revalidate"], stamp: nil) }
    }

    @Test("the last background refresh's failure is told by the next read; one the person must act on (an expired session) makes the read ask the server itself")
    func backgroundFailures() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) // a domain with something cached
        let stamp = RefreshStamp(url: dir.appendingPathComponent(".refresh-stamp"))
        let failing = NetworkError.http(status: 503, method: "GET", path: "/x", message: nil, retryAfter: nil)
        await #expect(throws: NetworkError.self) { try await stamp.runBehind(now: { Self.now.addingTimeInterval(-120) }) { throw failing } }
        let notices = Notices(), started = Started()
        let resource = Resource(policy: Self.behind, stored: CachedEntry("kept", savedAt: now.addingTimeInterval(-600)),
                                refresh: BackgroundRefresh(command: ["notes", "revalidate"], stamp: stamp)) { "live" }
        let told = try await reader(.script, notices: notices, started: started).show(resource) { _, _ in }
        #expect(told.shown == "kept" && resource.fetches == 0 && started.all.count == 1)
        #expect(notices.all == ["the last refresh of the notes in the background failed (2 min ago): The server answered 503 Service Unavailable to GET /x."],
                "\(notices.all)")

        // An expired session: the read asks the server itself, and its error is the command's.
        await #expect(throws: AuthError.self) {
            try await stamp.runBehind(now: { Self.now }) { throw AuthError.sessionExpired(profile: "default") }
        }
        let expired = Resource(policy: Self.behind, stored: CachedEntry("kept", savedAt: now.addingTimeInterval(-600)),
                               refresh: BackgroundRefresh(command: ["notes", "revalidate"], stamp: stamp)) { throw AuthError.sessionExpired(profile: "default") }
        await #expect(throws: AuthError.self) { try await reader(.script, started: Started()).show(expired) { _, _ in } }
        #expect(stamp.lastFailure() != nil)
        // Signed in again: that read's answer is shown, and the failure forgotten.
        let signedIn = Resource(policy: Self.behind, stored: CachedEntry("kept", savedAt: now.addingTimeInterval(-600)),
                                refresh: BackgroundRefresh(command: ["notes", "revalidate"], stamp: stamp)) { "live" }
        #expect(try await reader(.script, started: Started()).show(signedIn) { _, _ in }.shown == "live")
        #expect(stamp.lastFailure() == nil)
    }

    @Test("a failure of the background refresh is told no more once a later refresh saved the copy, whoever ran it (sync --watch)")
    func backgroundFailureEndsWithALaterSuccess() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let stamp = RefreshStamp(url: dir.appendingPathComponent(".refresh-stamp"))
        let failing = NetworkError.http(status: 500, method: "GET", path: "/api/visits", message: nil, retryAfter: nil)
        await #expect(throws: NetworkError.self) { try await stamp.runBehind(now: { Self.now.addingTimeInterval(-900) }) { throw failing } }
        // The watch refreshed the copy five minutes after that failure; it is due a refresh again.
        let notices = Notices()
        let resource = Resource(policy: Self.behind, stored: CachedEntry("watched", savedAt: now.addingTimeInterval(-600)),
                                refresh: BackgroundRefresh(command: ["notes", "revalidate"], stamp: stamp)) { "live" }
        let told = try await reader(.script, notices: notices, started: Started()).show(resource) { _, _ in }
        #expect(told.shown == "watched" && notices.all.isEmpty, "\(notices.all)")
        #expect(stamp.lastFailure() == nil, "forgotten")
    }

    @Test("a stand-in (an album's line for its details) is never shown online: fetched; shown when the network cannot answer")
    func standIn() async throws {
        let entry = CachedEntry("line", savedAt: now, standIn: true)
        let online = Resource(policy: Self.behind, stored: entry, refresh: BackgroundRefresh(command: ["x"], stamp: nil)) { "details" }
        #expect(try await reader(.script, started: Started()).show(online) { _, _ in }.shown == "details")
        let down = Resource(policy: Self.behind, stored: entry) { throw NetworkError.unreachable(host: "h", reason: "connection refused") }
        let fallback = try await reader(.script).show(down) { _, _ in }
        #expect(fallback.outcome == .staleFallback && fallback.shown == "line")
        let offline = Resource(policy: Self.behind, stored: entry) { "details" }
        #expect(try await reader(.script, offline: true).show(offline) { _, _ in }.shown == "line" && offline.fetches == 0)
    }

    @Test("due a refresh on a terminal with no background refresh: shown, then fetched, and what changed shown again")
    func dueInteractive() async throws {
        let resource = Resource(policy: Self.behind, stored: CachedEntry("kept", savedAt: now.addingTimeInterval(-600))) { "live" }
        let shownValues = Notices()
        struct Presenter: CachePresenter {
            let shown: Notices
            func render(_ value: String, source: DataSource) throws { shown.add(value) }
            func rerender(old: String, new: String) throws -> Bool {
                shown.add(new)
                return old != new
            }
        }
        let (outcome, shown) = try await reader(.interactive).show(resource, with: Presenter(shown: shownValues))
        #expect(outcome == .cached(changed: true) && shown == "live" && resource.fetches == 1)
        #expect(shownValues.all == ["kept", "live"])
    }

    @Test("stale, no background refresh: fetched; a failure the policy answers falls back to the stored copy with a notice, one it does not is thrown")
    func stale() async throws {
        let old = CachedEntry("kept", savedAt: now.addingTimeInterval(-7200))
        let fetched = Resource(policy: Self.behind, stored: old) { "live" }
        #expect(try await reader(.script).show(fetched) { _, _ in }.outcome == .fetched)
        let notices = Notices()
        let down = Resource(policy: Self.behind, stored: old) { throw NetworkError.offlineMode }
        let (outcome, shown) = try await reader(.script, notices: notices).show(down) { _, _ in }
        #expect(outcome == .staleFallback && shown == "kept" && notices.all.count == 1)
        let refused = Resource(policy: Self.behind, stored: old) { throw AuthError.notSignedIn(profile: "default") }
        await #expect(throws: AuthError.self) { try await reader(.script).show(refused) { _, _ in } }
    }

    @Test("offline: a stale copy is shown with why, never fetched; --refresh offline is an error")
    func offline() async throws {
        let notices = Notices()
        let resource = Resource(policy: Self.behind, stored: CachedEntry("kept", savedAt: now.addingTimeInterval(-7200))) { "live" }
        let (outcome, shown) = try await reader(.script, offline: true, notices: notices).show(resource) { _, _ in }
        #expect(outcome == .offlineCache && shown == "kept" && resource.fetches == 0 && notices.all.count == 1)
        await #expect(throws: NetworkError.self) { try await reader(.script, offline: true).show(resource, refresh: true) { _, _ in } }
    }

    @Test("--refresh skips a fresh copy and fetches")
    func refresh() async throws {
        let resource = Resource(policy: Self.behind, stored: CachedEntry("kept", savedAt: now)) { "live" }
        let (outcome, shown) = try await reader(.script).show(resource, refresh: true) { _, _ in }
        #expect(outcome == .fetched && shown == "live" && resource.fetches == 1)
    }
}
