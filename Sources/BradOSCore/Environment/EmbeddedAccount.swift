import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

/// Where and how the embedded backend runs for one profile, so that no other user of the
/// machine can reach it:
///
/// - it listens on a Unix domain socket (mode 0600) inside `<profile data>/.embedded/`
///   (0700, owned by the user): no TCP port is opened at all;
/// - its data (an SQLite database) lives in that folder too, one per profile;
/// - the profile's account there has a random password, generated on first use and kept in
///   `password` (0600) beside it, never the public `demo`.
public struct EmbeddedAccount: Sendable {
    public let directory: URL

    public init(profile: ProfileScope) {
        directory = profile.dataDirectory.appendingPathComponent(".embedded", isDirectory: true)
    }

    /// The folder, created 0700 (and refused if another user owns it).
    /// - Throws: ``StorageError``.
    public func prepare() throws -> URL {
        try FileSystem.createDirectory(directory)
        return directory
    }

    /// True the first time it is asked in this profile (a `.introduced` file is created then):
    /// what the embedded backend is gets said once per profile, not on every command.
    public func firstUse() -> Bool {
        guard let folder = try? prepare() else { return true }
        let fd = open(folder.appendingPathComponent(".introduced").path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return errno != EEXIST }
        close(fd)
        return true
    }

    /// The account's password: read, or generated (32 random bytes, hex) and saved 0600 on
    /// first use. Two processes creating it at once agree (`O_EXCL`; the loser reads).
    /// - Throws: ``StorageError``.
    public func password() throws -> String {
        let url = try prepare().appendingPathComponent("password")
        func saved() throws -> String? {
            guard let data = try AtomicFile.readIfPresent(url), let text = String(data: data, encoding: .utf8),
                  text.utf8.count == 64, text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
            return text
        }
        if let text = try saved() { return text }
        var generator = SystemRandomNumberGenerator()
        let secret = Hex.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        // Whole before it has the name: written under a name of this process's own, then
        // linked; link() fails if another process saved one first, and that one is the password.
        let temporary = url.path + ".\(getpid()).new"
        unlink(temporary) // left by a killed process that had this pid
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError.io(operation: "create", path: temporary, errno: errno) }
        defer { unlink(temporary) }
        let written = secret.withCString { write(fd, $0, 64) }
        fsync(fd)
        close(fd)
        guard written == 64 else { throw StorageError.io(operation: "write", path: url.path, errno: EIO) }
        if link(temporary, url.path) != 0, errno != EEXIST { throw StorageError.io(operation: "create", path: url.path, errno: errno) }
        guard let text = try saved() else {
            throw StorageError.coding(path: url.path, detail: "it does not hold a password brados made; remove it and try again")
        }
        return text
    }

    /// A socket path for this process: `<folder>/s-<pid>.sock`, or, when that is longer than
    /// a socket address holds, one in a new private folder (`mkdtemp`, 0700) under `/tmp`.
    /// Sockets of processes that are gone are removed first.
    /// - Throws: ``StorageError``.
    public func socketPath() throws -> String {
        let folder = try prepare()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix("s-") && name.hasSuffix(".sock") {
            if let pid = Int32(name.dropFirst(2).dropLast(5)), kill(pid, 0) != 0, errno == ESRCH { unlink(folder.appendingPathComponent(name).path) }
        }
        let path = folder.appendingPathComponent("s-\(getpid()).sock").path
        if path.utf8.count < 100 {
            EmbeddedSockets.removeAtExit(socket: path, folder: nil)
            return path
        }
        var template = Array("/tmp/brados-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw StorageError.io(operation: "create a private folder in", path: "/tmp", errno: errno)
        }
        let privateFolder = String(cString: made)
        EmbeddedSockets.removeAtExit(socket: privateFolder + "/s.sock", folder: privateFolder)
        return privateFolder + "/s.sock"
    }
}

/// Sockets (and fallback folders) this process made, removed when it exits.
enum EmbeddedSockets {
    private static let made = Mutex<[(socket: String, folder: String?)]>([])
    private static let registered = Mutex(false)

    static func removeAtExit(socket: String, folder: String?) {
        made.withLock { $0.append((socket, folder)) }
        let first = registered.withLock { done in defer { done = true }; return !done }
        if first { atexit { EmbeddedSockets.removeAll() } }
    }

    static func removeAll() {
        for entry in made.withLock({ $0 }) {
            unlink(entry.socket)
            if let folder = entry.folder { rmdir(folder) }
        }
}
}
