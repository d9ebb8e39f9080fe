import BradOSCore
import BradOSStorage
import Foundation
import TestSupport
import Testing
@testable import Visits

@Suite("Visits cache in the key-value store")
struct VisitsCacheTests {
    @Test("save and load round-trip under the cached_visits keys")
    func roundTrip() throws {
        let dir = TemporaryDirectory()
        let store = KeyValueStore(url: dir.path("defaults.json"))
        let cache = VisitsCache(store: store)
        let visits = [visit("a", hoursAgo: 1), visit("b", hoursAgo: 5)]
        let savedAt = Date(timeIntervalSince1970: 1_800_000_000)
        try cache.save(visits, at: savedAt)
        #expect(cache.load() == VisitsCache.Entry(visits: visits, savedAt: savedAt))
        #expect(Set(store.keys()) == ["cached_visits", "cached_visits_timestamp", "cached_visits_generation", "cached_visits_changed_at", "visits_format_version"])
        // An add or a delete moves when the list changed (what a merge compares), never the fetch's timestamp.
        _ = try cache.remove(id: "a")
        #expect(cache.load()?.savedAt == savedAt && (cache.load()?.changedAt ?? savedAt) > savedAt)
    }

    @Test("an interrupted delete is settled only by a list asked for after it: gone means deleted, there means not; told once")
    func settledDeletes() throws {
        let dir = TemporaryDirectory()
        let cache = VisitsCache(store: KeyValueStore(url: dir.path("defaults.json")))
        let marked = Date(timeIntervalSince1970: 1_800_000_000)
        try cache.markUnsettledDelete(id: "a", place: "Riverside Dental", at: marked)
        try cache.markUnsettledDelete(id: "b", place: nil, at: marked)
        // A list asked for before the delete says nothing of it.
        #expect(try cache.settleDeletes(serverIDs: ["a", "b"], asked: marked.addingTimeInterval(-1)).isEmpty)
        #expect(cache.unsettledDeletes().count == 2)
        let settled = try cache.settleDeletes(serverIDs: ["b", "c"], asked: marked.addingTimeInterval(1))
        #expect(settled == [.init(id: "a", place: "Riverside Dental", deleted: true), .init(id: "b", place: nil, deleted: false)])
        #expect(settled[0].sentence == "the interrupted delete of visit a (Riverside Dental) went through: the server no longer has it.")
        #expect(settled[1].sentence.hasPrefix("visit b was not deleted"))
        #expect(cache.unsettledDeletes().isEmpty)
        #expect(try cache.takeSettled() == settled)
        #expect(try cache.takeSettled().isEmpty, "told once")
    }

    @Test("a read is one read: no lock taken, no file written (a valid copy, or none)")
    func readWithoutLock() throws {
        let dir = TemporaryDirectory()
        let file = dir.path("defaults.json")
        let cache = VisitsCache(store: KeyValueStore(url: file), account: "user-a")
        #expect(cache.load() == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).isEmpty, "reading nothing created a file")
        try cache.save([visit("a", hoursAgo: 1)], at: Date(timeIntervalSince1970: 1_800_000_000))
        try FileManager.default.removeItem(at: dir.path(".defaults.json.lock"))
        let before = try Data(contentsOf: file)
        #expect(cache.load()?.visits.map(\.id) == ["a"])
        #expect(!FileManager.default.fileExists(atPath: dir.path(".defaults.json.lock").path), "a read took the write lock")
        #expect(try Data(contentsOf: file) == before)
    }

    @Test("another account's cached visits are never served, and are removed")
    func otherAccount() throws {
        let dir = TemporaryDirectory()
        let store = KeyValueStore(url: dir.path("defaults.json"))
        try VisitsCache(store: store, account: "user-a").save([visit("a", hoursAgo: 1)], at: Date())
        #expect(VisitsCache(store: store, account: "user-a").load() != nil)
        #expect(VisitsCache(store: store, account: "user-b").load() == nil)
        #expect(VisitsCache(store: store, account: "user-a").load() == nil)
    }

    @Test("a corrupt cached value reads as missing and is removed; other keys survive")
    func corrupt() throws {
        let dir = TemporaryDirectory()
        let store = KeyValueStore(url: dir.path("defaults.json"))
        try store.set("not a list", forKey: "cached_visits")
        try store.set("2026-11-21T09:00:00Z", forKey: "cached_visits_timestamp")
        try store.set("keep", forKey: "mealplan.inProgressSessionId")
        #expect(VisitsCache(store: store).load() == nil)
        #expect(store.keys() == ["mealplan.inProgressSessionId"])
    }

    @Test("remove then restore puts the visit back exactly where it was")
    func removeRestore() throws {
        let dir = TemporaryDirectory()
        let cache = VisitsCache(store: KeyValueStore(url: dir.path("defaults.json")))
        let visits = [visit("a", hoursAgo: 1), visit("b", hoursAgo: 2), visit("c", hoursAgo: 3)]
        try cache.save(visits, at: Date(timeIntervalSince1970: 1))
        let removed = try #require(try cache.remove(id: "b"))
        #expect(removed.index == 1)
        #expect(cache.load()?.visits.map(\.id) == ["a", "c"])
        try cache.restore(removed.visit, at: removed.index)
        #expect(cache.load()?.visits == visits)
        try cache.restore(removed.visit, at: removed.index) // twice: no duplicate
        #expect(cache.load()?.visits == visits)
        #expect(try cache.remove(id: "zzz") == nil)
    }

    @Test("a created visit is inserted newest first; with no cache nothing is written")
    func insert() throws {
        let dir = TemporaryDirectory()
        let cache = VisitsCache(store: KeyValueStore(url: dir.path("defaults.json")))
        try cache.insert(visit("x", hoursAgo: 0))
        #expect(cache.load() == nil)
        try cache.save([visit("a", hoursAgo: 1), visit("c", hoursAgo: 3)], at: Date(timeIntervalSince1970: 1))
        try cache.insert(visit("b", hoursAgo: 2))
        #expect(cache.load()?.visits.map(\.id) == ["a", "b", "c"])
    }

    @Test("the plugin's clear removes both keys (logout) and nothing else")
    func pluginClear() throws {
        let dir = TemporaryDirectory()
        let profile = Paths.resolve(environment: ["BRADOS_HOME": dir.url.path]).profile(.default)
        let store = KeyValueStore(url: profile.defaultsFile)
        try VisitsCache(store: store).save([visit("a", hoursAgo: 1)], at: Date())
        try store.set("keep", forKey: "other")
        #expect(try VisitsPlugin().stats(in: profile).bytes > 0)
        try VisitsPlugin().clear(in: profile)
        #expect(store.keys() == ["other"])
        #expect(try VisitsPlugin().stats(in: profile) == CacheStats())
    }

    @Test("visits an earlier brados kept in the shared key-value store move to their own document once, every visit and the interrupted delete with them")
    func upgradeFromSharedStore() throws {
        let dir = TemporaryDirectory()
        let profile = Paths.resolve(environment: ["BRADOS_HOME": dir.url.path]).profile(.default)
        let shared = KeyValueStore(url: profile.defaultsFile)
        let old = VisitsCache(store: shared, account: "u1")
        try old.save([visit("a", hoursAgo: 1), visit("b", hoursAgo: 2)], at: Date(timeIntervalSince1970: 100))
        try old.markUnsettledDelete(id: "c", place: "Dentist", at: Date(timeIntervalSince1970: 200))
        try shared.set("keep", forKey: "other")

        let moved = VisitsCache.live(in: profile, account: "u1")
        #expect(moved.load()?.visits.map(\.id) == ["a", "b"])
        #expect(moved.load()?.savedAt == Date(timeIntervalSince1970: 100))
        #expect(moved.unsettledDeletes().map(\.id) == ["c"], "the queued delete moves with the list")
        #expect(shared.keys() == ["other"], "nothing of the visits is left in the shared store; the rest is")
        let own = KeyValueStore(url: VisitsCache.url(in: profile))
        #expect(own.value(Int.self, forKey: VisitsCache.formatVersionKey) == VisitsCache.formatVersion)

        // Once: a list the shared store gains later (an older brados run meanwhile) is not taken over the document.
        try VisitsCache(store: shared).save([visit("z", hoursAgo: 9)], at: Date(timeIntervalSince1970: 50))
        #expect(VisitsCache.live(in: profile, account: "u1").load()?.visits.map(\.id) == ["a", "b"])
    }

    @Test("a document of another format version reads as missing and is left as it is")
    func otherFormatVersion() throws {
        let dir = TemporaryDirectory()
        let profile = Paths.resolve(environment: ["BRADOS_HOME": dir.url.path]).profile(.default)
        let cache = VisitsCache.live(in: profile)
        try cache.save([visit("a", hoursAgo: 1)], at: Date())
        let own = KeyValueStore(url: VisitsCache.url(in: profile))
        try own.set(VisitsCache.formatVersion + 1, forKey: VisitsCache.formatVersionKey)
        #expect(cache.load() == nil)
        #expect(own.value([Visit].self, forKey: VisitsCache.visitsKey)?.count == 1, "kept for the brados that wrote it")
        #expect(VisitsCache.problem(inDocument: try Data(contentsOf: own.url)) != nil, "an import refuses it")
    }
}
