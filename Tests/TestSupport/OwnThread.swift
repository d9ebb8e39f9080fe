import Foundation
import Testing

/// A test that blocks its thread (waiting on a process it started, as every end-to-end test
/// does) runs on a thread of its own, never on Swift's cooperative pool.
///
/// That pool has one thread per core: on 2 cores, two tests blocked in `waitUntilExit` hold all
/// of it, and every other test's tasks wait behind them — an in-process server misses its
/// client's 20 s timeout, a `Task` started by the code under test never runs. A suite says
/// `@Suite("…", .ownThread)`; each of its tests then runs on an executor whose jobs each get a
/// thread (a serial Dispatch queue of their own, which Dispatch gives a thread even while others
/// block), its child tasks and awaits with it: two processes a test waits on side by side
/// (`async let`, a task group) still run side by side. The helpers that block (``BuiltProducts/Running/finish(timeout:)``,
/// ``SystemCommand``, ``ServerProcess`` …) record an issue when called from a test without it.
public enum OwnThread {
    /// Whether the current task runs on a thread of its own (inside ``run(_:)``).
    @TaskLocal static var isHeld = false

    /// Runs `body` with a thread of its own: where it blocks, no other task waits.
    public static func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await $isHeld.withValue(true) {
            try await withTaskExecutorPreference(ThreadExecutor()) { try await body() }
        }
    }

    /// Called by a helper about to block its thread: an issue if that thread may be the
    /// cooperative pool's (a test's task without ``run(_:)``). Off any task (a Dispatch queue of
    /// the helper's own) blocking is fine.
    static func mayBlock(_ what: @autoclosure () -> String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) {
        guard !isHeld, withUnsafeCurrentTask(body: { $0 != nil }) else { return }
        Issue.record("\(what()) blocks a thread of the cooperative pool: give the suite the `.ownThread` trait (Tests/TestSupport/OwnThread.swift)",
                     sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
}

/// A task executor that runs each job on a thread where it may block: a serial Dispatch queue
/// made for the job (serial queues overcommit: a thread even when every other one is blocked;
/// Dispatch reuses the threads). A task's jobs never run at once, so nothing runs out of order.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue(label: "brados.tests.own-thread").async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// The trait behind `.ownThread`: each test case of the suite (or the test) in ``OwnThread/run(_:)``,
/// at most ``slots`` of them at once.
///
/// Off the pool, nothing else bounds how many run: every end-to-end test at once would start
/// their processes together on 2 cores and miss their timeouts. Twice as many as there are
/// cores keep the cores busy while others wait; `BRADOS_TEST_JOBS` sets another number.
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    static let slots = Slots(Int(ProcessInfo.processInfo.environment["BRADOS_TEST_JOBS"] ?? "").flatMap { $0 > 0 ? $0 : nil }
                             ?? 2 * ProcessInfo.processInfo.activeProcessorCount)

    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> OwnThreadTrait? { testCase == nil ? nil : self }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await Self.slots.acquire()
        do { try await OwnThread.run(function) } catch {
            await Self.slots.release()
            throw error
        }
        await Self.slots.release()
    }

    /// A counting semaphore that waits without blocking a thread.
    actor Slots {
        private var free: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(_ count: Int) { free = count }

        func acquire() async {
            if free > 0 { free -= 1; return }
            await withCheckedContinuation { waiting.append($0) }
        }

        func release() {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test runs on a thread of its own: it may block it (``OwnThread``).
    public static var ownThread: Self { Self() }
}
