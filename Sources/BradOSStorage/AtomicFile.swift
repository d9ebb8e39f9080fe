import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Crash-safe file writes: a temp file in the same directory, `fsync`, `rename`, `fsync`
/// of the directory. A reader sees the old bytes or the new bytes, never a torn file.
///
/// Every file is created 0600 and every directory 0700: brados files hold personal data.
/// Thread-safe: no shared state.
public enum AtomicFile {
    /// Test seam: runs after the temp file is synced and before the rename.
    public struct Hooks: Sendable {
        public var beforeRename: @Sendable (_ temporary: URL) throws -> Void
        public init(beforeRename: @escaping @Sendable (URL) throws -> Void = { _ in }) {
            self.beforeRename = beforeRename
        }
        public static let none = Hooks()
    }

    /// Writes `data` to `url` atomically, creating parent directories (0700, owned by this user).
    /// - Parameter durable: `fsync` the file and the directory (true by default). Caches of
    ///   data that can be fetched again pass `false`: still atomic (never torn), not synced.
    /// - Parameter createParents: `false` for a path the user chose (`-o`): its folder must
    ///   exist, and may belong to anyone who lets this user write there.
    /// - Throws: ``StorageError/io(operation:path:errno:)``; on failure the previous file is untouched
    ///   and the temp file is removed.
    public static func write(_ data: Data, to url: URL, mode: mode_t = 0o600, durable: Bool = true, createParents: Bool = true, hooks: Hooks = .none) throws {
        if createParents { try FileSystem.createDirectory(url.deletingLastPathComponent()) }
        // Unnamed until whole (O_TMPFILE): a process killed mid-write leaves no temp file.
        let file = try UnnamedFile(destination: url, mode: mode)
        do {
            try writeAll(data, to: file.descriptor, path: url.path)
            try file.publish(overwrite: true, durable: durable, beforeRename: hooks.beforeRename)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Writes `data` to a new temp file beside `url` (not synced) and returns it; the caller
    /// renames it into place (or removes it).
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public static func prepareTemporary(_ data: Data, for url: URL, mode: mode_t = 0o600, reusing spare: URL? = nil) throws -> URL {
        let directory = url.deletingLastPathComponent()
        try FileSystem.createDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).tmp-\(UInt32.random(in: .min ... .max))")
        var fd: Int32 = -1
        var reused = false
        // An emptied file to refill (see the blob cache's spare pool): claimed by a rename, so
        // a spare another process took first is skipped, and a new file is created instead.
        // Not opened with O_TRUNC: truncating to zero makes ext4 start writeback on close.
        if let spare, rename(spare.path, temporary.path) == 0 {
            fd = open(temporary.path, O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                fchmod(fd, mode)
                futimens(fd, nil) // a fresh modification time: an orphan sweep spares it
                reused = true
            } else {
                unlink(temporary.path)
            }
        }
        if fd < 0 { fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw StorageError.io(operation: "create", path: temporary.path, errno: errno) }
        defer { close(fd) }
        do {
            try writeAll(data, to: fd, path: temporary.path)
            var info = stat()
            if reused, fstat(fd, &info) == 0, Int(info.st_size) > data.count, ftruncate(fd, off_t(data.count)) != 0 {
                throw StorageError.io(operation: "truncate", path: temporary.path, errno: errno)
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
        return temporary
    }

    /// Reads a file, or `nil` when it does not exist.
    /// - Throws: ``StorageError/io(operation:path:errno:)`` for any other failure.
    public static func readIfPresent(_ url: URL) throws -> Data? {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw StorageError.io(operation: "open", path: url.path, errno: errno)
        }
        defer { close(fd) }
        // Read straight into a buffer of the file's size (grown if the file grows meanwhile).
        var info = stat()
        let expected = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
        var result = Data(count: max(expected, 4096))
        var filled = 0
        while true {
            if filled == result.count { result.count += max(64 * 1024, result.count / 2) }
            let count = result.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StorageError.io(operation: "read", path: url.path, errno: errno)
            }
            if count == 0 { break }
            filled += count
        }
        result.count = filled
        return result
    }

    /// Writes all of `data` to `fd`, retrying short writes and EINTR.
    static func writeAll(_ data: Data, to fd: Int32, path: String) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw StorageError.io(operation: "write", path: path, errno: errno)
                }
                offset += written
            }
        }
    }

    /// Makes a rename in `directory` durable.
    static func syncDirectory(_ directory: URL) {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
