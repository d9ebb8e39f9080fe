@testable import BradOSCore
import BradOSStorage
import Foundation
import TestSupport
import Testing

@Suite("Background refreshes: at most one per interval")
struct RefreshIntervalTests {
    let root = TemporaryDirectory("refresh-interval")

    /// 100 scripted reads of a fresh copy due a refresh, 0.1 s apart (10 s in all).
    func scriptedReads(interval: Duration, count: Int = 100, step: TimeInterval = 0.1) async throws -> Int {
        let started = Locked(0)
        let stamp = RefreshStamp(url: root.url.appendingPathComponent("\(interval)/.refresh-stamp"))
        let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let policy = CachePolicy(freshFor: .seconds(300), revalidation: .behind, minimumRefreshInterval: interval)
        for _ in 0..<count {
            let now = clock.value
            let reader = CacheReader(mode: .script, offline: false, now: { now }, startInBackground: { _ in started.withLock { $0 += 1 } })
            try await reader.show(Items(policy: policy, stamp: stamp, savedAt: now.addingTimeInterval(-1))) { _, _ in }
            clock.withLock { $0 = $0.addingTimeInterval(step) }
        }
        return started.value
    }

    /// A stored copy of `[1]`, refreshed in the background.
    struct Items: CachedResource {
        let policy: CachePolicy
        let stamp: RefreshStamp
        let savedAt: Date
        var noun: String { "items" }
        func stored() -> CachedEntry<[Int]>? { CachedEntry([1], savedAt: savedAt) }
        func fetch(progress: @escaping FetchProgress) async throws -> [Int] { [1] }
        var backgroundRefresh: BackgroundRefresh? { BackgroundRefresh(command: ["items", "revalidate"], stamp: stamp) }
    }

    @Test("100 scripted reads in 10 s start one background refresh with a 30 s interval, one per call with none")
    func oneRefreshPerInterval() async throws {
        #expect(try await scriptedReads(interval: .seconds(30)) == 1)
        #expect(try await scriptedReads(interval: .seconds(2)) == 5)
        #expect(try await scriptedReads(interval: .zero, count: 10) == 10)
    }

    @Test("a stamp from the future (a clock set back) or an unreadable one does not stop refreshes")
    func unreadableStamp() throws {
        let stamp = RefreshStamp(url: root.url.appendingPathComponent("d/.refresh-stamp"))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try AtomicFile.write(Data("not a time".utf8), to: stamp.url)
        #expect(stamp.claim(at: now, interval: .seconds(30)) == .claimed)
        #expect(stamp.claim(at: now.addingTimeInterval(29), interval: .seconds(30)) == .recent)
        #expect(stamp.claim(at: now.addingTimeInterval(-3600), interval: .seconds(30)) == .claimed)
        #expect(stamp.lastStarted() == now.addingTimeInterval(-3600))
    }
}
