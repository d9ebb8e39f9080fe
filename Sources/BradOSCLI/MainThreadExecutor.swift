import CBradOSSystem
import Glibc
import Synchronization

/// The task executor a command runs on: the process's main thread, which runs the jobs it is
/// given until the command ends (``run(until:)``). A command that only reads its caches so
/// starts no thread at all: no Dispatch worker, no concurrency pool, no event loop; one that
/// opens a socket gets its event-loop threads from NIO as before, and its tasks come back here.
///
/// Jobs run in the order they came. What is enqueued from another thread (a continuation
/// resumed by NIO, a timer) wakes the main thread through an eventfd; what the main thread
/// enqueues itself costs no system call.
final class MainThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let jobs = Mutex<[UnownedJob]>([])
    private let wakeFD: Int32
    private let mainThread = pthread_self()

    /// Made on the main thread, which is the one that calls ``run(until:)``.
    init() {
        wakeFD = brados_eventfd()
    }

    deinit { close(wakeFD) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        if pthread_equal(pthread_self(), mainThread) == 0 {
            wake()
        }
    }

    /// Wakes ``run(until:)`` to ask its condition again (for a condition set off the main thread).
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Runs jobs on the calling (main) thread until `finished` says the work is done, waiting
    /// for a job when none is ready. `finished` is asked after each batch; it must turn true
    /// in a job run here, or be followed by ``wake()``.
    func run(until finished: () -> Bool) {
        var batch: [UnownedJob] = []
        while !finished() {
            jobs.withLock { swap(&$0, &batch) }
            if batch.isEmpty {
                var count: UInt64 = 0
                while read(wakeFD, &count, 8) < 0 && errno == EINTR {}
                continue
            }
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
