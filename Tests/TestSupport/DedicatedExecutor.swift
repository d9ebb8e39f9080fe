import Dispatch

/// A task executor on a thread of its own (a serial dispatch queue), outside Swift's cooperative
/// pool. That pool has one thread per core for each priority: on 2 cores, two tests blocked
/// waiting on a process hold both, and a live server under test (with its client's 20 s
/// timeout) does not run while they wait. A test that serves on a real socket runs with this
/// preference (`withTaskExecutorPreference(DedicatedExecutor.shared)`): the server's and the
/// client's tasks, children of that scope, then run here, whatever the other tests do.
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = DedicatedExecutor()
    private let queue = DispatchQueue(label: "brados.tests.dedicated-executor")

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
