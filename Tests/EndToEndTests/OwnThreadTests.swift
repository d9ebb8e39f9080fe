import Foundation
import Testing
import TestSupport

/// The end-to-end tests block their threads waiting on processes; `.ownThread` keeps them off
/// Swift's cooperative pool, so the tests running beside them (an in-process server, a task the
/// code under test starts) are never starved (Tests/TestSupport/OwnThread.swift).
@Suite("Test support: a test that blocks runs on a thread of its own")
struct OwnThreadTests {
    @Test("more tests blocked at once than the pool has threads: a task on the global executor still runs at once")
    func poolStaysFree() async throws {
        let blocked = ProcessInfo.processInfo.activeProcessorCount + 1
        let started = Locked(0), ran = Locked(false)
        let waited = try await withThrowingTaskGroup(of: Duration.self) { group in
            for _ in 0..<blocked {
                group.addTask {
                    try await OwnThread.run {
                        // As a test waiting on a process does: the thread blocked, up to 10 s.
                        started.withLock { $0 += 1 }
                        let clock = ContinuousClock(), begin = clock.now
                        while !ran.value && clock.now - begin < .seconds(10) { usleep(1_000) }
                        return clock.now - begin
                    }
                }
            }
            while started.value < blocked { try await Task.sleep(for: .milliseconds(5)) }
            Task.detached { ran.withLock { $0 = true } }
            return try await group.reduce(into: [Duration]()) { $0.append($1) }
        }
        #expect(ran.value && waited.allSatisfy { $0 < .seconds(5) }, "waited \(waited)")
    }

    @Test("inside one such test, processes waited on side by side (a task group, async let) still run side by side")
    func childrenSideBySide() async throws {
        let children = 3
        let arrived = Locked(0)
        let all = try await OwnThread.run {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<children {
                    group.addTask {
                        // Each blocks until every one has come: only if they run at once.
                        arrived.withLock { $0 += 1 }
                        let clock = ContinuousClock(), begin = clock.now
                        while arrived.value < children && clock.now - begin < .seconds(10) { usleep(1_000) }
                        return arrived.value == children
                    }
                }
                return try await group.allSatisfy { $0 }
            }
        }
        #expect(all)
    }
}
