import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Logging
import TestSupport
import Testing
@testable import Visits

@Suite("visits list: stale-while-revalidate with an injected clock")
struct VisitsListTests {
    struct Fixture {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let api: FakeVisitsAPI
        let io = CapturingIO(environment: [:])
        let spawned = Locked<[[String]]>([])
        var cache: VisitsCache { VisitsCache(store: KeyValueStore(url: dir.path("defaults.json"))) }
        var repository: VisitsRepository {
            let api = self.api
            return VisitsRepository(cache: cache, ttl: .seconds(300), now: clock.dateProvider, api: { api })
        }

        init(_ visits: [Visit]) { api = FakeVisitsAPI(visits) }

        /// `visits list` through the shared reader, background refreshes recorded.
        /// - Parameter wait: `refresh.wait` (none by default: a copy never waits for the server).
        func list(_ mode: CacheReader.Mode, offline: Bool = false, json: Bool = false, refresh: Bool = false,
                  wait: Duration = .zero) async throws -> CacheReader.Outcome {
            let spawned = self.spawned
            let output = Output(io: io, format: json ? .json : .human)
            let reader = CacheReader(mode: mode, offline: offline, io: io, now: clock.dateProvider, notice: { output.notice($0) },
                                     startInBackground: { command in spawned.withLock { $0.append(command) } }, wait: wait)
            return try await reader.show(repository.list, with: VisitsRenderer(output: output, now: clock.dateProvider), refresh: refresh).outcome
        }

        func seedCache(_ visits: [Visit], ageSeconds: Int64) throws {
            try cache.save(visits, at: clock.date)
            clock.advance(by: .seconds(ageSeconds))
        }
    }

    @Test("within the TTL, scripts get the cache at once and revalidation goes to the background")
    func freshScript() async throws {
        let fixture = Fixture([visit("a", hoursAgo: 1), visit("new", hoursAgo: 0)])
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 142)
        let outcome = try await fixture.list(.script, json: true)
        #expect(outcome == .refreshingInBackground)
        #expect(fixture.api.calls.isEmpty)
        #expect(fixture.spawned.withLock { $0 } == [["visits", "revalidate"]])
        let document = try JSONSerialization.jsonObject(with: Data(fixture.io.stdout.utf8)) as? [String: Any]
        #expect((document?["visits"] as? [Any])?.count == 1)
        #expect((document?["source"] as? [String: Any])?["ageSeconds"] as? Int == 142)
    }

    @Test("--verbose logs the cache's age and whether it is valid: `cache age 142 s (valid)`, `cache expired, fetching`")
    func verboseCacheLines() async throws {
        let fixture = Fixture([visit("a", hoursAgo: 1)])
        let logs = CapturingIO(environment: [:])
        let api = fixture.api
        func repository(offline: Bool = false) -> VisitsRepository {
            VisitsRepository(cache: fixture.cache, ttl: .seconds(300), offline: offline, now: fixture.clock.dateProvider,
                             logger: Logger(label: "t") { _ in TerminalLogHandler(io: logs, level: .debug) }, api: { api })
        }
        let reader = CacheReader(mode: .script, offline: false, now: fixture.clock.dateProvider)
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 142)
        _ = try await reader.answer(repository().list)
        #expect(logs.stderr.contains("brados: debug: cache age 142 s (valid)"), "\(logs.stderr)")
        #expect(!logs.stderr.contains("expired"))
        // An answer has no background process: the copy due a refresh is refreshed in the foreground.
        #expect(fixture.api.calls == ["list"])

        fixture.clock.advance(by: .seconds(312))
        _ = try await reader.answer(repository().list)
        #expect(logs.stderr.contains("brados: debug: cache expired, fetching (age 312 s)"), "\(logs.stderr)")
        #expect(fixture.api.calls == ["list", "list"])

        // Offline, the expired copy is shown, and the line says so instead of "fetching".
        fixture.clock.advance(by: .seconds(400))
        _ = try await CacheReader(mode: .script, offline: true, now: fixture.clock.dateProvider).answer(repository(offline: true).list)
        #expect(logs.stderr.contains("brados: debug: cache expired (age 400 s); offline, showing it"), "\(logs.stderr)")
    }

    @Test("within the TTL on a terminal: the copy at once and the prompt back; the refresh in the background, no request in the process")
    func freshInteractiveBehind() async throws {
        let fixture = Fixture([visit("new1", hoursAgo: 0), visit("a", hoursAgo: 1)])
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 60)
        #expect(try await fixture.list(.interactive) == .refreshingInBackground)
        #expect(fixture.api.calls.isEmpty && fixture.spawned.withLock { $0 } == [["visits", "revalidate"]])
        #expect(fixture.io.stdout.contains("1 visit · from cache (saved 1 min ago; refreshing behind)"), "\(fixture.io.stdout)")
        #expect(fixture.io.stderr.isEmpty, "a fresh copy needs no notice: \(fixture.io.stderr)")
    }

    @Test("within the TTL on a terminal with refresh.wait: cache first, then the changes re-rendered")
    func freshInteractive() async throws {
        let fixture = Fixture([visit("new1", hoursAgo: 0), visit("new2", hoursAgo: 0.5), visit("a", hoursAgo: 1)])
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 60)
        let outcome = try await fixture.list(.interactive, wait: .seconds(5))
        #expect(outcome == .cached(changed: true))
        let out = fixture.io.stdout
        #expect(out.contains("1 visit · from cache (saved 1 min ago)"))
        #expect(out.contains("↻ 2 new visits"))
        #expect(out.range(of: "from cache")!.lowerBound < out.range(of: "new1")!.lowerBound)
        #expect(fixture.cache.load()?.visits.count == 3)
    }

    @Test("on a terminal with refresh.wait, an unchanged list is not printed twice")
    func unchangedInteractive() async throws {
        let fixture = Fixture([visit("a", hoursAgo: 1)])
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 10)
        #expect(try await fixture.list(.interactive, wait: .seconds(5)) == .cached(changed: false))
        #expect(!fixture.io.stdout.contains("↻"))
        #expect(fixture.io.stdout.components(separatedBy: "\na ").count == 2) // the row for "a" printed once
    }

    @Test("past the TTL: the stale copy at once with its age said, the refresh in the background; --json says so in its source")
    func expiredBehind() async throws {
        let fixture = Fixture([visit("b", hoursAgo: 0), visit("a", hoursAgo: 1)])
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 312)
        #expect(try await fixture.list(.script, json: true) == .refreshingInBackground)
        #expect(fixture.api.calls.isEmpty && fixture.spawned.withLock { $0 } == [["visits", "revalidate"]])
        #expect(fixture.io.stderr.contains("showing visits cached 5 min ago, out of date; refreshing them in the background"), "\(fixture.io.stderr)")
        let source = (try JSONSerialization.jsonObject(with: Data(fixture.io.stdout.utf8)) as? [String: Any])?["source"] as? [String: Any]
        #expect(source?["stale"] as? Bool == true && source?["refreshing"] as? Bool == true && source?["kind"] as? String == "cache")
        #expect((source?["notice"] as? String)?.contains("out of date") == true)
    }

    @Test("past the TTL with refresh.wait the list is fetched first")
    func expired() async throws {
        let fixture = Fixture([visit("b", hoursAgo: 0), visit("a", hoursAgo: 1)])
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 312)
        #expect(try await fixture.list(.script, wait: .seconds(5)) == .fetched)
        #expect(fixture.api.calls == ["list"])
        #expect(fixture.io.stdout.contains("2 visits · from the network"))
        #expect(fixture.cache.load()?.savedAt == fixture.clock.date)
    }

    @Test("past the TTL with the server down, failing or rate limiting: the stale cache with a notice of its age, exit 0",
          arguments: [NetworkError.unreachable(host: "h", reason: "connection refused"),
                      .http(status: 503, method: "GET", path: "/api/visits", message: nil, retryAfter: nil),
                      // reliability/server_faults.py: a 429 used to exit 9 though the cache was there.
                      .http(status: 429, method: "GET", path: "/api/visits", message: nil, retryAfter: .seconds(1))])
    func staleIfError(error: NetworkError) async throws {
        let fixture = Fixture([])
        fixture.api.fail(with: error)
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 720)
        #expect(try await fixture.list(.script, wait: .seconds(5)) == .staleFallback)
        #expect(fixture.io.stderr.contains("showing cached visits from 12 min ago"))
        #expect(fixture.io.stdout.contains("1 visit · from cache (saved 12 min ago, expired)"))
    }

    @Test("an auth failure is not hidden behind the stale cache")
    func authNotHidden() async throws {
        let fixture = Fixture([])
        fixture.api.fail(with: .http(status: 401, method: "GET", path: "/api/visits", message: nil, retryAfter: nil))
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 720)
        await #expect(throws: NetworkError.self) { try await fixture.list(.script, wait: .seconds(5)) }
    }

    @Test("no cache with --offline: the offline error, and the API is never called")
    func offlineNoCache() async throws {
        let fixture = Fixture([visit("a", hoursAgo: 1)])
        for refresh in [false, true] {
            do {
                _ = try await fixture.list(.script, offline: true, refresh: refresh)
                Issue.record("expected the offline error")
            } catch {
                #expect(ExitStatus.code(for: error) == 5)
            }
        }
        #expect(fixture.api.calls.isEmpty)
    }

    @Test("a delete that lands while a revalidation is in flight is not undone by it")
    func deleteDuringRevalidation() async throws {
        let fixture = Fixture([visit("a", hoursAgo: 1), visit("b", hoursAgo: 2)])
        try fixture.seedCache([visit("a", hoursAgo: 1), visit("b", hoursAgo: 2)], ageSeconds: 10)
        let cache = fixture.cache
        fixture.api.onList { _ = try? cache.remove(id: "a") } // `visits delete a` in another process
        _ = try await fixture.repository.fetch()
        #expect(cache.load()?.visits.map(\.id) == ["b"])
    }

    @Test("a logout that lands while a fetch is in flight is not undone by it")
    func logoutDuringRevalidation() async throws {
        let fixture = Fixture([visit("a", hoursAgo: 1)])
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 10)
        let cache = fixture.cache
        fixture.api.onList { try? cache.clear() }
        _ = try await fixture.repository.fetch()
        #expect(cache.load() == nil)
    }

    @Test("--offline serves the cache at any age and never calls the API")
    func offlineCache() async throws {
        let fixture = Fixture([])
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 3600)
        #expect(try await fixture.list(.interactive, offline: true) == .offlineCache)
        #expect(fixture.api.calls.isEmpty)
        #expect(fixture.spawned.withLock { $0 }.isEmpty)
        #expect(fixture.io.stderr.contains("offline"))
    }

    @Test("--refresh ignores a fresh cache")
    func refresh() async throws {
        let fixture = Fixture([visit("b", hoursAgo: 0)])
        try fixture.seedCache([visit("a", hoursAgo: 1)], ageSeconds: 1)
        #expect(try await fixture.list(.script, refresh: true) == .fetched)
        #expect(fixture.api.calls == ["list"])
        #expect(fixture.cache.load()?.visits.map(\.id) == ["b"])
    }
}

@Suite("visits delete: optimistic, rolled back on failure")
struct VisitsDeleteTests {
    func repository(_ dir: TemporaryDirectory, _ api: FakeVisitsAPI) -> VisitsRepository {
        VisitsRepository(cache: VisitsCache(store: KeyValueStore(url: dir.path("defaults.json"))), now: { Date() }, api: { api })
    }

    @Test("the visit leaves the cache before the server answers; success keeps it gone")
    func success() async throws {
        let dir = TemporaryDirectory()
        let visits = [visit("a", hoursAgo: 1), visit("b", hoursAgo: 2)]
        let api = FakeVisitsAPI(visits)
        let cache = VisitsCache(store: KeyValueStore(url: dir.path("defaults.json")))
        try cache.save(visits, at: Date())
        let seenDuringDelete = Locked<[String]?>(nil)
        api.onDelete { seenDuringDelete.withLock { $0 = cache.load()?.visits.map(\.id) } }
        let deleted = try await repository(dir, api).delete(id: "a")
        #expect(deleted?.id == "a")
        #expect(seenDuringDelete.withLock { $0 } == ["b"])
        #expect(cache.load()?.visits.map(\.id) == ["b"])
    }

    @Test("a 500 restores the cached entry exactly and reports the error")
    func rollback() async throws {
        let dir = TemporaryDirectory()
        let visits = [visit("a", hoursAgo: 1), visit("b", hoursAgo: 2), visit("c", hoursAgo: 3)]
        let api = FakeVisitsAPI(visits, failure: .http(status: 500, method: "DELETE", path: "/api/visits/b", message: nil, retryAfter: nil))
        let cache = VisitsCache(store: KeyValueStore(url: dir.path("defaults.json")))
        let savedAt = Date(timeIntervalSince1970: 1_800_000_000)
        try cache.save(visits, at: savedAt)
        do {
            _ = try await repository(dir, api).delete(id: "b")
            Issue.record("expected the server error")
        } catch {
            #expect(ExitStatus.code(for: error) == 6)
        }
        // The list and its timestamp exactly (when it last changed moved: it was changed, then put back).
        #expect(cache.load()?.visits == visits && cache.load()?.savedAt == savedAt)
    }

    @Test("a visit the server does not have stays removed and is reported as not found")
    func notOnServer() async throws {
        let dir = TemporaryDirectory()
        let cache = VisitsCache(store: KeyValueStore(url: dir.path("defaults.json")))
        try cache.save([visit("ghost", hoursAgo: 1)], at: Date())
        await #expect(throws: VisitsError.self) { try await repository(dir, FakeVisitsAPI([])).delete(id: "ghost") }
        #expect(cache.load()?.visits.isEmpty == true)
    }
}
