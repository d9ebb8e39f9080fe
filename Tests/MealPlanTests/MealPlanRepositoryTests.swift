import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
@testable import MealPlan
import TestSupport
import Testing

@Suite("Meal plan store")
struct MealPlanRepositoryTests {
    struct Fixture {
        let dir = TemporaryDirectory()
        let api: FakeMealPlanAPI
        var cache: MealPlanCache { MealPlanCache(directory: dir.path("mealplan")) }
        var defaults: KeyValueStore { KeyValueStore(url: dir.path("defaults.json")) }
        var repository: MealPlanRepository {
            let api = self.api
            return MealPlanRepository(cache: cache, defaults: defaults, api: { api })
        }
        init(_ api: FakeMealPlanAPI) { self.api = api }
    }

    @Test("a cached finalized session is served with no request, not even building the client")
    func cachedNoRequest() async throws {
        let fixture = Fixture(FakeMealPlanAPI())
        try fixture.cache.store(makeSession("s1", finalized: true))
        let repository = MealPlanRepository(cache: fixture.cache, defaults: fixture.defaults, api: {
            Issue.record("the API must not be touched")
            throw NetworkError.offlineMode
        })
        let loaded = try await repository.latest()
        #expect(loaded.session.id == "s1")
        guard loaded.source.kind == .cache else { Issue.record("expected the cache"); return }
    }

    @Test("no cache: asks the API and caches a finalized answer")
    func fetchAndCache() async throws {
        let fixture = Fixture(FakeMealPlanAPI(sessions: [makeSession("s1", finalized: true)], latest: "s1"))
        let loaded = try await fixture.repository.latest()
        #expect(loaded.source == .network)
        #expect(fixture.api.calls == ["latest"])
        #expect(fixture.cache.isCached(sessionID: "s1"))
        _ = try await fixture.repository.latest()
        #expect(fixture.api.calls == ["latest"])
    }

    @Test("the saved in-progress id is asked first; a draft is not cached")
    func inProgressFirst() async throws {
        let fixture = Fixture(FakeMealPlanAPI(sessions: [makeSession("draft", finalized: false), makeSession("old", finalized: true)], latest: "old"))
        try fixture.defaults.set("draft", forKey: MealPlanRepository.inProgressKey)
        let loaded = try await fixture.repository.latest()
        #expect(loaded.session.id == "draft")
        #expect(fixture.api.calls == ["session draft"])
        #expect(fixture.cache.cached() == nil)
    }

    @Test("a saved in-progress id that no longer exists is forgotten and latest is used")
    func staleInProgress() async throws {
        let fixture = Fixture(FakeMealPlanAPI(sessions: [makeSession("s1", finalized: true)], latest: "s1"))
        try fixture.defaults.set("gone", forKey: MealPlanRepository.inProgressKey)
        let loaded = try await fixture.repository.latest()
        #expect(loaded.session.id == "s1")
        #expect(fixture.api.calls == ["session gone", "latest"])
        #expect(fixture.repository.inProgressID == nil)
    }

    @Test("no plan at all is a clear not-found error")
    func noPlan() async throws {
        let fixture = Fixture(FakeMealPlanAPI())
        await #expect(throws: MealPlanError.noPlanYet) { try await fixture.repository.latest() }
        #expect(ExitStatus.code(for: MealPlanError.noPlanYet) == 3)
    }

    @Test("new invalidates the cache and remembers the draft; finalize writes the re-fetched session")
    func newCritiqueFinalize() async throws {
        let fixture = Fixture(FakeMealPlanAPI())
        try fixture.cache.store(makeSession("old", finalized: true))
        let draft = try await fixture.repository.startNew()
        #expect(fixture.cache.cached() == nil)
        #expect(fixture.repository.inProgressID == draft.id)
        let revised = try await fixture.repository.critique("no fish")
        #expect(revised.critiques.map(\.text) == ["no fish"])
        let final = try await fixture.repository.finalize()
        #expect(final.isFinalized)
        #expect(fixture.api.calls == ["generate", "critique \(draft.id)", "finalize \(draft.id)", "session \(draft.id)"])
        // The file holds the re-fetched session (dates at the millisecond precision of ISO-8601).
        let roundTripped = try JSONCoding.decode(MealPlanSession.self, from: JSONCoding.encode(final))
        #expect(fixture.cache.cached()?.session == roundTripped)
        #expect(fixture.repository.inProgressID == nil)
    }

    @Test("critique and finalize without a plan in progress say so")
    func nothingInProgress() async throws {
        let fixture = Fixture(FakeMealPlanAPI())
        await #expect(throws: MealPlanError.noPlanInProgress) { try await fixture.repository.critique("x") }
        await #expect(throws: MealPlanError.noPlanInProgress) { try await fixture.repository.finalize() }
        #expect(fixture.api.calls.isEmpty)
    }

    @Test("refresh bypasses the cache and replaces it")
    func refresh() async throws {
        let fixture = Fixture(FakeMealPlanAPI(sessions: [makeSession("new", finalized: true)], latest: "new"))
        try fixture.cache.store(makeSession("old", finalized: true))
        let loaded = try await fixture.repository.refresh()
        #expect(loaded.session.id == "new")
        #expect(loaded.source == .network)
        #expect(fixture.cache.isCached(sessionID: "new"))
    }

    @Test("a saved in-progress id that was finalized elsewhere is cached and forgotten")
    func finalizedElsewhere() async throws {
        let fixture = Fixture(FakeMealPlanAPI(sessions: [makeSession("s1", finalized: true)], latest: "s1"))
        try fixture.defaults.set("s1", forKey: MealPlanRepository.inProgressKey)
        _ = try await fixture.repository.latest()
        #expect(fixture.repository.inProgressID == nil)
        #expect(fixture.cache.isCached(sessionID: "s1"))
    }

    @Test("a failed refresh or generation keeps the cached plan")
    func failuresKeepCache() async throws {
        let fixture = Fixture(FakeMealPlanAPI())
        try fixture.cache.store(makeSession("kept", finalized: true))
        let broken = MealPlanRepository(cache: fixture.cache, defaults: fixture.defaults, api: {
            throw NetworkError.unreachable(host: "h", reason: "connection refused")
        })
        await #expect(throws: NetworkError.self) { try await broken.refresh() }
        await #expect(throws: NetworkError.self) { try await broken.startNew() }
        #expect(fixture.cache.isCached(sessionID: "kept"))
    }

    struct ReadOnlyCache: MealPlanCaching {
        let fileURL = URL(fileURLWithPath: "/nonexistent/latest-session.json")
        func cached() -> CachedMealPlan? { nil }
        func store(_ session: MealPlanSession, finalizedHere: Bool) throws -> Bool { throw StorageError.io(operation: "write", path: fileURL.path, errno: 28) }
        func replace(with session: MealPlanSession) throws { throw StorageError.io(operation: "write", path: fileURL.path, errno: 28) }
        func invalidate() throws {}
        func isCached(sessionID: String) -> Bool { false }
    }

    /// A cache holding a plan, on a disk with no room for another.
    final class FullDiskCache: MealPlanCaching {
        let fileURL = URL(fileURLWithPath: "/full/latest-session.json")
        let held = Locked<CachedMealPlan?>(CachedMealPlan(cachedAt: Date(timeIntervalSince1970: 0), session: makeSession("old", finalized: true)))
        func cached() -> CachedMealPlan? { held.value }
        func store(_ session: MealPlanSession, finalizedHere: Bool) throws -> Bool { throw StorageError.io(operation: "write", path: fileURL.path, errno: ENOSPC) }
        func replace(with session: MealPlanSession) throws { throw StorageError.io(operation: "write", path: fileURL.path, errno: ENOSPC) }
        func invalidate() throws { held.withLock { $0 = nil } }
        func isCached(sessionID: String) -> Bool { held.value?.session.id == sessionID }
    }

    @Test("a refresh whose answer cannot be written (a full disk) keeps the plan cached before, and shows the new one")
    func refreshOnFullDisk() async throws {
        let api = FakeMealPlanAPI(sessions: [makeSession("new", finalized: true)], latest: "new")
        let cache = FullDiskCache()
        let repository = MealPlanRepository(cache: cache, defaults: KeyValueStore(url: TemporaryDirectory().path("d.json")), api: { api })
        #expect(try await repository.refresh().session.id == "new")
        #expect(cache.cached()?.session.id == "old", "the cached plan was deleted before its replacement could be written")
    }

    @Test("a plan fetched while the cache cannot be written is still shown")
    func unwritableCache() async throws {
        let api = FakeMealPlanAPI(sessions: [makeSession("s1", finalized: true)], latest: "s1")
        let repository = MealPlanRepository(cache: ReadOnlyCache(), defaults: KeyValueStore(url: TemporaryDirectory().path("d.json")), api: { api })
        let shown = try await repository.latest()
        #expect(shown.session.id == "s1" && shown.source == .network)
        // Nothing was cached, so the next read asks again (and is shown again).
        #expect(try await repository.latest().session.id == "s1")
        #expect(api.calls.filter { $0 == "latest" }.count == 2)
    }

    @Test("offline with no cache fails with the needs-network error and keeps nothing broken")
    func offlineNoCache() async throws {
        let fixture = Fixture(FakeMealPlanAPI())
        try fixture.defaults.set("draft-1", forKey: MealPlanRepository.inProgressKey)
        let asked = Locked(0)
        let repository = MealPlanRepository(cache: fixture.cache, defaults: fixture.defaults, offline: true,
                                  api: { asked.withLock { $0 += 1 }; throw NetworkError.offlineMode })
        do {
            _ = try await repository.latest()
            Issue.record("expected offline")
        } catch {
            #expect(ExitStatus.code(for: error) == 5)
        }
        #expect(asked.value == 0, "--offline must not even start the network stack")
        #expect(fixture.cache.cached() == nil)
        #expect(fixture.defaults.value(String.self, forKey: MealPlanRepository.inProgressKey) == "draft-1", "the plan in progress was forgotten")
    }
}

extension MealPlanError: Equatable {
    public static func == (lhs: MealPlanError, rhs: MealPlanError) -> Bool { lhs.summary == rhs.summary }
}
