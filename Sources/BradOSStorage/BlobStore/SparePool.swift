import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Emptied files of evicted blobs, kept for the next writes of this process.
///
/// Creating a file is the costliest part of a write on ext4 once many files were deleted:
/// the inode allocator skips recently freed inodes (`find_inode_bit` → `recently_deleted`
/// took two thirds of `store` in `perf`). An evicted blob's file is therefore moved to
/// `.spare/` and emptied instead of unlinked, and a later write renames it
/// into place and refills it. At most `limit` spares are kept; the rest are unlinked.
/// Claiming is a `rename`, so a spare taken by another process is simply skipped.
/// Thread-safe.
final class SparePool: Sendable {
    let directory: URL
    let limit: Int
    private let files = Mutex<[URL]>([])

    /// Adopts the spares earlier processes left (removing any beyond `limit`, and staging
    /// files a crashed process left behind).
    init(directory: URL, limit: Int = 512) {
        self.directory = directory
        self.limit = limit
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
        let old = Date().addingTimeInterval(-300)
        for name in names where name.hasPrefix(".") {
            let path = directory.appendingPathComponent(name)
            if let modified = FileSystem.attributes(of: path)?.modified, modified < old { unlink(path.path) }
        }
        let published = names.filter { !$0.hasPrefix(".") }
        for name in published.dropFirst(limit) { unlink(directory.appendingPathComponent(name).path) }
        files.withLock { $0 = published.prefix(limit).map { directory.appendingPathComponent($0) } }
    }

    /// Moves an evicted blob file here (emptied), or unlinks it when the pool is full.
    ///
    /// A spare is published under a fresh random name only once it is empty: it is moved to a
    /// private staging name, emptied, then renamed into the pool. Another process can only
    /// ever claim (by rename) a file that is already empty and that nobody will touch again.
    func recycle(_ url: URL, name: String) {
        let full = files.withLock { $0.count >= limit }
        if full { unlink(url.path); return }
        let staging = directory.appendingPathComponent(".staging-\(Self.randomName())")
        if rename(url.path, staging.path) != 0 {
            guard errno == ENOENT, (try? FileSystem.createDirectory(directory)) != nil, rename(url.path, staging.path) == 0 else {
                unlink(url.path)
                return
            }
        }
        // Emptied through a descriptor, then closed: ext4 flags a file truncated to zero and
        // starts writeback when it is next closed (`auto_da_alloc`); closing it here, empty,
        // clears the flag cheaply instead of on the next write's close.
        let fd = open(staging.path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { unlink(staging.path); return }
        let emptied = ftruncate(fd, 0) == 0
        close(fd)
        let spare = directory.appendingPathComponent(Self.randomName())
        guard emptied, rename(staging.path, spare.path) == 0 else { unlink(staging.path); return }
        files.withLock { $0.append(spare) }
    }

    static func randomName() -> String { String(UInt64.random(in: .min ... .max), radix: 16) }

    /// A spare file to reuse, if any.
    func take() -> URL? { files.withLock { $0.popLast() } }

    func removeAll() {
        files.withLock { $0.removeAll() }
        try? FileSystem.remove(directory)
    }
}
