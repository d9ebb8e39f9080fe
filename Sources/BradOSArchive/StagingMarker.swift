import BradOSCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

/// The one file that says a `cache import` or `cache export` may have left staging folders
/// behind: `<data root>/.staging-in-use`, empty. It is what lets every other command skip
/// ``CacheImportRecovery`` with one `stat` (no directory listing of any profile).
///
/// An import or export ``hold()``s it (a shared `flock`) before it creates its first staging
/// folder and for as long as it runs; the marker is removed only by someone who takes it
/// exclusively (so never under a running import) and has found no staging folder left. A
/// killed import or export leaves it, so the next command looks, rolls back and clears it.
public struct StagingMarker: Sendable {
    public let paths: Paths
    public var url: URL { paths.dataRoot.appendingPathComponent(".staging-in-use") }

    public init(paths: Paths) { self.paths = paths }

    /// Whether the marker is there (one `stat`).
    public var isSet: Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }

    /// Sets the marker and holds it (shared) until the hold is released or the process ends.
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public func hold() throws -> Hold {
        try FileSystem.createDirectory(url.deletingLastPathComponent())
        while true {
            let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw StorageError.io(operation: "open", path: url.path, errno: errno) }
            while flock(descriptor, LOCK_SH) != 0 {
                guard errno == EINTR else {
                    let code = errno
                    close(descriptor)
                    throw StorageError.io(operation: "lock", path: url.path, errno: code)
                }
            }
            // Cleared between our open and our lock (another process removed it): the file we
            // hold is no longer the marker. Open it again.
            if isMarker(descriptor) { return Hold(descriptor: descriptor, marker: self) }
            close(descriptor)
        }
    }

    /// Runs `scan` (a look for staging folders) holding the marker exclusively, so no import
    /// or export can start under it, and removes the marker when `scan` found none left. When an
    /// import or export holds the marker, `scan` runs all the same and the marker stays.
    /// - Returns: what `scan` recovered.
    func recover(_ scan: () -> (recovered: [URL], remaining: Int)) -> [URL] {
        while true {
            let descriptor = open(url.path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { return errno == ENOENT ? [] : scan().recovered }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return scan().recovered }
            // Removed and made again between our open and our lock: ours is not the marker.
            guard isMarker(descriptor) else {
                if !isSet { return [] }
                continue
            }
            // Held exclusively: an import or export that starts now waits in hold() until the
            // marker is removed, then makes a new one; none can create a staging folder meanwhile.
            let found = scan()
            if found.remaining == 0 { unlink(url.path) }
            return found.recovered
        }
    }

    /// Whether the open file `descriptor` is the one named by ``url`` (same device and inode).
    private func isMarker(_ descriptor: Int32) -> Bool {
        var held = stat(), named = stat()
        return fstat(descriptor, &held) == 0 && lstat(url.path, &named) == 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }

    /// A held marker: released by ``finish()`` or ``release()`` (or when the process ends).
    public final class Hold: Sendable {
        private let descriptor: Int32
        private let marker: StagingMarker
        private let released = Mutex(false)

        init(descriptor: Int32, marker: StagingMarker) {
            self.descriptor = descriptor
            self.marker = marker
        }

        /// The import or export is over and its staging folders are gone: lets the marker go
        /// and removes it when nothing is left to recover (``CacheImportRecovery/recoverIfMarked(_:)``).
        public func finish() {
            release()
            CacheImportRecovery.recoverIfMarked(marker.paths)
        }

        deinit { release() }

        /// Lets the marker go (it stays on disk: ``CacheImportRecovery`` clears it).
        public func release() {
            released.withLock { done in
                guard !done else { return }
                done = true
                close(descriptor)
            }
        }
    }
}
