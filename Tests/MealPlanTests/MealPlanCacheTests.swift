import BradOSCore
import BradOSTerminal
import Foundation
@testable import MealPlan
import TestSupport
import Testing

@Suite("Meal plan cache")
struct MealPlanCacheTests {
    @Test("a finalized session round-trips through latest-session.json")
    func roundTrip() throws {
        let dir = TemporaryDirectory()
        let cache = MealPlanCache(directory: dir.url, now: { Date(timeIntervalSince1970: 1_800_000_000) })
        let value = makeSession("s1", finalized: true)
        #expect(try cache.store(value))
        let cached = try #require(cache.cached())
        #expect(cached.session == value)
        #expect(cached.formatVersion == 1)
        #expect(cached.cachedAt == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(cache.fileURL.lastPathComponent == "latest-session.json")
    }

    @Test("missing → nil")
    func missing() {
        #expect(MealPlanCache(directory: TemporaryDirectory().url).cached() == nil)
    }

    @Test("a corrupt, truncated, wrong-version or draft file → nil; removed, except another version's (another brados may read it)",
          arguments: ["{garbage", "", "{\"formatVersion\":1,\"cachedAt\":\"2026-11-21T08:00:00Z\",\"session\":{\"id\":\"x\"",
                      "{\"formatVersion\":99,\"cachedAt\":\"2026-11-21T08:00:00Z\",\"session\":SESSION}",
                      "{\"formatVersion\":1,\"cachedAt\":\"2026-11-21T08:00:00Z\",\"session\":DRAFT}"])
    func corrupt(content: String) throws {
        let dir = TemporaryDirectory()
        let cache = MealPlanCache(directory: dir.url)
        let finalized = String(decoding: try JSONCoding.encode(makeSession("s1", finalized: true)), as: UTF8.self)
        let draft = String(decoding: try JSONCoding.encode(makeSession("s2", finalized: false)), as: UTF8.self)
        try Data(content.replacingOccurrences(of: "SESSION", with: finalized).replacingOccurrences(of: "DRAFT", with: draft).utf8).write(to: cache.fileURL)
        #expect(cache.cached() == nil)
        #expect(FileManager.default.fileExists(atPath: cache.fileURL.path) == content.contains("\"formatVersion\":99"))
    }

    @Test("drafts are never written")
    func draftsNotCached() throws {
        let dir = TemporaryDirectory()
        let cache = MealPlanCache(directory: dir.url)
        #expect(try cache.store(makeSession("d", finalized: false)) == false)
        #expect(!FileManager.default.fileExists(atPath: cache.fileURL.path))
    }

    @Test("writing the session already cached does nothing; another id replaces it")
    func sameIDNoWrite() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let cache = MealPlanCache(directory: dir.url, now: clock.dateProvider)
        #expect(try cache.store(makeSession("s1", finalized: true)))
        let before = try Data(contentsOf: cache.fileURL)
        clock.advance(by: .seconds(60)) // a rewrite would record a new cachedAt
        #expect(try cache.store(makeSession("s1", finalized: true)) == false)
        #expect(try Data(contentsOf: cache.fileURL) == before)
        #expect(cache.isCached(sessionID: "s1"))
        #expect(try cache.store(makeSession("s2", finalized: true)))
        #expect(cache.isCached(sessionID: "s2"))
        #expect(!cache.isCached(sessionID: "s1"))
    }

    @Test("invalidate deletes the file")
    func invalidate() throws {
        let dir = TemporaryDirectory()
        let cache = MealPlanCache(directory: dir.url)
        try cache.store(makeSession("s1", finalized: true))
        try cache.invalidate()
        #expect(cache.cached() == nil)
        #expect(!FileManager.default.fileExists(atPath: cache.fileURL.path))
        try cache.invalidate() // twice is fine
    }

    @Test("today picks the weekday, Monday first")
    func today() {
        let plan = makeSession("s", finalized: true)
        // 2026-11-21 is a Saturday.
        let saturday = Date(timeIntervalSince1970: 1_795_262_400) // 2026-11-21T12:00:00Z
        #expect(plan.day(for: saturday, timeZone: TimeZone(identifier: "UTC")!)?.name == "Saturday")
        #expect(plan.day(for: saturday.addingTimeInterval(2 * 86400), timeZone: TimeZone(identifier: "UTC")!)?.name == "Monday")
    }
}
