import Foundation
import Synchronization

/// An in-process LRU of blobs bounded by total bytes. Thread-safe.
final class MemoryLRU: Sendable {
    private struct State {
        var entries: [BlobKey: (data: Data, tick: UInt64)] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }
    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func get(_ key: BlobKey) -> Data? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            state.tick += 1
            state.entries[key] = (entry.data, state.tick)
            return entry.data
        }
    }

    func set(_ key: BlobKey, _ data: Data) {
        guard data.count <= capacity else { return }
        state.withLock { state in
            if let old = state.entries[key] { state.bytes -= old.data.count }
            state.tick += 1
            state.entries[key] = (data, state.tick)
            state.bytes += data.count
            if state.bytes > capacity {
                for (evicted, entry) in state.entries.sorted(by: { $0.value.tick < $1.value.tick }) {
                    guard state.bytes > capacity * 3 / 4 else { break }
                    state.entries[evicted] = nil
                    state.bytes -= entry.data.count
                }
            }
        }
    }

    func remove(_ key: BlobKey) {
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.data.count }
        }
    }

    func removeAll() { state.withLock { $0 = State() } }
}
