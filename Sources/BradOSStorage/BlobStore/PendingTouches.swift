import Synchronization

/// Access times recorded by reads, waiting to be written. Thread-safe.
final class PendingTouches: Sendable {
    struct Entry: Sendable {
        var bucket: String
        var name: String
        var accessedAt: Double
    }
    private let state = Mutex<(entries: [String: Entry], reads: Int)>(([:], 0))

    /// Records a read; returns the reads recorded since the last drain.
    @discardableResult
    func record(_ bucket: String, _ name: String, at time: Double) -> Int {
        state.withLock { state in
            state.entries[bucket + "/" + name] = Entry(bucket: bucket, name: name, accessedAt: time)
            state.reads += 1
            return state.reads
        }
    }

    func drain() -> [Entry] {
        state.withLock { state in
            defer { state = ([:], 0) }
            return Array(state.entries.values)
        }
    }
}
