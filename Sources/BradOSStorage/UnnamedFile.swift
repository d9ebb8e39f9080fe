import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file written in the folder where it will live, without a name until it is whole.
///
/// On Linux it is opened with `O_TMPFILE` and linked into place by ``publish(overwrite:)``,
/// so a process killed while writing leaves nothing behind (reliability/crash_safety.py).
/// Where the file system has no unnamed files, it is a hidden `.NAME.RANDOM.partial` beside
/// the destination that ``publish(overwrite:)`` renames.
public final class UnnamedFile {
    public let destination: URL
    /// The descriptor to write to.
    public let descriptor: Int32
    /// The hidden name while writing, when the file system has no unnamed files.
    private let partial: URL?
    private var closed = false

    #if os(Linux)
    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), a macro Swift does not import.
    static let openTemporary: Int32 = 0o20_000_000 | O_DIRECTORY
    #endif

    /// Opens the file, mode `mode`, in `destination`'s folder.
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public init(destination: URL, mode: mode_t = 0o600) throws {
        self.destination = destination
        let folder = destination.deletingLastPathComponent().path
        #if os(Linux)
        let fd = open(folder, Self.openTemporary | O_WRONLY | O_CLOEXEC, mode)
        if fd >= 0, access("/proc/self/fd", X_OK) == 0 {
            descriptor = fd
            partial = nil
            return
        }
        if fd >= 0 { close(fd) }
        #endif
        let hidden = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UInt64.random(in: 0 ... .max)).partial")
        let fd2 = open(hidden.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd2 >= 0 else { throw StorageError.io(operation: "create", path: hidden.path, errno: errno) }
        descriptor = fd2
        partial = hidden
    }

    /// Whether the file has no name while it is written.
    public var isUnnamed: Bool { partial == nil }

    /// Syncs the file and gives it its name. Without `overwrite`, a file that appeared at the
    /// destination meanwhile is never replaced.
    /// - Parameters:
    ///   - durable: `fsync` the file and the folder (caches of refetchable data skip it).
    ///   - beforeNaming: called once the file is synced, before it gets any name; a throw (an
    ///     interrupted export) leaves no file, as ``discard()`` then removes what there is.
    ///   - beforeRename: called with the temporary name just before it replaces the
    ///     destination (tests simulate a crash there); a throw leaves the destination as it was.
    /// - Throws: ``StorageError/io(operation:path:errno:)`` (`EEXIST` when the name is taken),
    ///   and what `beforeNaming` throws.
    public func publish(overwrite: Bool, durable: Bool = true, beforeNaming: () throws -> Void = {},
                        beforeRename: (URL) throws -> Void = { _ in }) throws {
        if durable, fsync(descriptor) != 0 { throw StorageError.io(operation: "sync", path: destination.path, errno: errno) }
        try beforeNaming()
        if let partial {
            try finish()
            if !overwrite, FileSystem.exists(destination) {
                unlink(partial.path)
                throw StorageError.io(operation: "create", path: destination.path, errno: EEXIST)
            }
            try replace(destination, with: partial, beforeRename: beforeRename)
        } else {
            let source = "/proc/self/fd/\(descriptor)"
            if overwrite {
                // Linked under a random hidden name, then renamed over the destination.
                let temporary = destination.deletingLastPathComponent()
                    .appendingPathComponent(".\(destination.lastPathComponent).\(UInt64.random(in: 0 ... .max)).partial")
                guard linkat(AT_FDCWD, source, AT_FDCWD, temporary.path, AT_SYMLINK_FOLLOW) == 0 else {
                    throw StorageError.io(operation: "create", path: temporary.path, errno: errno)
                }
                try replace(destination, with: temporary, beforeRename: beforeRename)
            } else {
                guard linkat(AT_FDCWD, source, AT_FDCWD, destination.path, AT_SYMLINK_FOLLOW) == 0 else {
                    throw StorageError.io(operation: "create", path: destination.path, errno: errno)
                }
            }
            try finish()
        }
        if durable { AtomicFile.syncDirectory(destination.deletingLastPathComponent()) }
    }

    private func replace(_ destination: URL, with temporary: URL, beforeRename: (URL) throws -> Void) throws {
        do {
            try beforeRename(temporary)
            guard rename(temporary.path, destination.path) == 0 else {
                throw StorageError.io(operation: "replace", path: destination.path, errno: errno)
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    /// Closes and forgets the file: nothing of it remains.
    public func discard() {
        if !closed {
            closed = true
            close(descriptor)
        }
        if let partial { unlink(partial.path) }
    }

    private func finish() throws {
        guard !closed else { return }
        closed = true
        guard close(descriptor) == 0 else { throw StorageError.io(operation: "close", path: destination.path, errno: errno) }
    }

    deinit {
        if !closed { close(descriptor) }
    }
}
