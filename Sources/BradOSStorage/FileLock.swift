import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An advisory, exclusive, cross-process lock on a lock file (`flock(2)`).
///
/// Two `brados` processes — or two `FileLock` values in one process — never hold the
/// same lock at once. The kernel releases it if the holder dies, so a crash never
/// leaves a stale lock. Not thread-safe: use one value from one task.
public final class FileLock {
    public let url: URL
    private var descriptor: Int32 = -1

    /// Opens (creating, 0600) the lock file.
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public init(url: URL) throws {
        self.url = url
        try FileSystem.createDirectory(url.deletingLastPathComponent())
        descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageError.io(operation: "open lock", path: url.path, errno: errno) }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Takes the lock, waiting for another holder to release it.
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public func lock() throws {
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            throw StorageError.io(operation: "lock", path: url.path, errno: errno)
        }
    }

    /// Takes the lock if nobody holds it; returns whether it did.
    public func tryLock() -> Bool { flock(descriptor, LOCK_EX | LOCK_NB) == 0 }

    /// Releases the lock.
    public func unlock() { _ = flock(descriptor, LOCK_UN) }

    /// Runs `body` holding the lock at `url`.
    /// - Throws: what `body` throws, or ``StorageError``.
    public static func withExclusiveLock<T>(at url: URL, _ body: () throws -> T) throws -> T {
        let lock = try FileLock(url: url)
        try lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs async `body` holding the lock, polling for it every `interval` so no thread blocks.
    /// - Throws: ``StorageError/lockTimeout(path:)`` after `timeout`, or what `body` throws.
    public static func withExclusiveLock<T>(
        at url: URL, timeout: Duration = .seconds(60), interval: Duration = .milliseconds(20),
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        let lock = try FileLock(url: url)
        var waited = Duration.zero
        while !lock.tryLock() {
            guard waited < timeout else { throw StorageError.lockTimeout(path: url.path) }
            try await Task.sleep(for: interval)
            waited += interval
        }
        defer { lock.unlock() }
        return try await body()
    }
}
