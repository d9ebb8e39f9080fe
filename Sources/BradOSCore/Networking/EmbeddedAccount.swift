import Foundation
#if canImport(Glibc)
import Glibc
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

    /// The account's password: read, or generated (32 random bytes, hex) and saved 0600 on
    /// first use. Two processes creating it at once agree (`O_EXCL`; the loser reads).
    /// - Throws: ``StorageError``.
    public func password() throws -> String {
        let url = try prepare().appendingPathComponent("password")
        if let data = try AtomicFile.readIfPresent(url), let text = String(data: data, encoding: .utf8), text.count == 64 { return text }
        var generator = SystemRandomNumberGenerator()
        let secret = Hex.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        let fd = open(url.path + ".new", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError.io(operation: "create", path: url.path, errno: errno) }
        let written = secret.withCString { write(fd, $0, 64) }
        fsync(fd)
        close(fd)
        guard written == 64 else { throw StorageError.io(operation: "write", path: url.path, errno: EIO) }
        // link() fails if another process saved one first: then that one is the password.
        if link(url.path + ".new", url.path) != 0, errno != EEXIST {
            let code = errno
            unlink(url.path + ".new")
            throw StorageError.io(operation: "create", path: url.path, errno: code)
        }
        unlink(url.path + ".new")
        guard let data = try AtomicFile.readIfPresent(url), let text = String(data: data, encoding: .utf8) else {
            throw StorageError.io(operation: "read", path: url.path, errno: EIO)
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
        if path.utf8.count < 100 { return path }
        var template = Array("/tmp/brados-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw StorageError.io(operation: "create a private folder in", path: "/tmp", errno: errno)
        }
        return String(cString: made) + "/s.sock"
    }
}
