import BradOSCore
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

// Hashing the files of an export, on every core, and telling a file changed since.
extension CacheExporter {
    /// Whether `info` (a file's status now) is the status it had when it was hashed.
    static func sameFile(_ info: stat, as item: Item) -> Bool {
        Int64(info.st_size) == item.size && UInt64(info.st_dev) == item.device && UInt64(info.st_ino) == item.inode
            && info.st_mtim.tv_sec == item.modified.tv_sec && info.st_mtim.tv_nsec == item.modified.tv_nsec
            && info.st_ctim.tv_sec == item.changed.tv_sec && info.st_ctim.tv_nsec == item.changed.tv_nsec
    }

    /// Hashes every file, on up to as many threads as there are cores (at most 4), in the
    /// caller's order; `nil` for a file that vanished. The calling task's cancellation stops
    /// every thread at its next 1 MiB.
    static func hashAll(_ files: [(file: ExportFile, domain: String, source: URL, copy: Int32?)], known: ExportHashMemo = ExportHashMemo(),
                        started: Date = Date()) throws -> [Item?] {
        let workers = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount, files.count))
        let state = HashState(count: files.count)
        @Sendable func work(_ cancelled: @escaping () -> Bool) {
            while let index = state.next() {
                let entry = files[index]
                do {
                    let item = try hash(entry.file, domain: entry.domain, source: entry.source, descriptor: entry.copy,
                                        hashingStarted: started, known: known, cancelled: { cancelled() || state.stopped })
                    state.finish(index, item)
                } catch {
                    state.fail(error)
                }
            }
        }
        let group = DispatchGroup()
        for _ in 1..<workers { DispatchQueue.global().async(group: group) { work { false } } }
        // This thread is a worker too, and the one that sees the task's cancellation.
        work {
            if Task.isCancelled { state.fail(CancellationError()) }
            return Task.isCancelled
        }
        // Done with its share, it still watches for cancellation while the others finish.
        while group.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if Task.isCancelled { state.fail(CancellationError()) }
        }
        return try state.results()
    }

    /// Size, times, identity, SHA-256 and mode of a file (read from `descriptor` when given);
    /// `nil` when it vanished.
    static func hash(_ file: ExportFile, domain: String, source: URL, descriptor: Int32? = nil, hashingStarted: Date = Date(),
                     known: ExportHashMemo = ExportHashMemo(), cancelled: () -> Bool = { Task.isCancelled }) throws -> Item? {
        let fd = descriptor.map { dup($0) } ?? open(source.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw StorageError.io(operation: "open", path: source.path, errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StorageError.io(operation: "stat", path: source.path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        func item(sha256: String, rehash: Bool) -> Item {
            Item(file: file, domain: domain, source: source, size: Int64(info.st_size), modified: info.st_mtim, changed: info.st_ctim,
                 device: UInt64(info.st_dev), inode: UInt64(info.st_ino), sha256: sha256, mode: info.st_mode & 0o777, rehash: rehash)
        }
        // Hashed by an earlier export and not changed since: its status says so.
        if descriptor == nil, let sha256 = known.sha256(source.path, info) { return item(sha256: sha256, rehash: false) }
        var hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var size: Int64 = 0
        var offset: off_t = 0
        while true {
            if cancelled() { throw CancellationError() }
            let count = pread(fd, buffer.baseAddress, buffer.count, offset)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw StorageError.io(operation: "read", path: source.path, errno: errno) }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
            offset += off_t(count)
        }
        guard size == Int64(info.st_size) else { throw ArchiveError.changedDuringExport(path: file.archivePath) }
        // Changed within 2 s of the hashing (clocks tick coarsely): a later write could leave
        // the same times, so it is hashed again while written. A private database copy, open
        // and unlinked, can be written by no one.
        let changed = Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        let racy = descriptor == nil && max(changed, modified) >= hashingStarted.timeIntervalSince1970 - 2
        return item(sha256: Hex.encode(hasher.finalize()), rehash: racy)
    }
}
