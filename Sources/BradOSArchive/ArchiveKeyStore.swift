import AgeEncryption
import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

/// A profile's age identity: `<config>/keys/<profile>.txt`, 0600, an age identity file
/// (`age -d -i` reads it as is). It lives with the configuration, never in a cache or an
/// archive, and `auth logout` removes it only when asked: losing it loses every backup
/// encrypted to it.
public struct ArchiveKeyStore: Sendable {
    public let url: URL
    public let profile: ProfileName

    public init(paths: Paths, profile: ProfileName) {
        self.profile = profile
        url = paths.configRoot.appendingPathComponent("keys", isDirectory: true).appendingPathComponent("\(profile.rawValue).txt")
    }

    /// The key, or `nil` when the profile has none.
    /// - Throws: ``ArchiveError/invalidKeys(source:detail:)`` for a damaged key file.
    public func load() throws -> NativeIdentity? {
        guard let data = try AtomicFile.readIfPresent(url) else { return nil }
        do { return try AgeIdentityFile.parse(String(decoding: data, as: UTF8.self)).first } catch {
            throw ArchiveError.invalidKeys(source: url.path, detail: "\(error)")
        }
    }

    /// Creates a key (post-quantum, `age1pq1…`, with `postQuantum`); an existing one is replaced
    /// only with `replace`.
    /// - Throws: ``ArchiveError/keyExists(profile:recipient:)``, ``StorageError``.
    public func generate(replace: Bool, postQuantum: Bool = false, now: Date) throws -> NativeIdentity {
        // Refused whenever the file exists, readable or not: it may be a key this brados cannot
        // read (hand-edited, another kind), and it is the only way to open its archives.
        if !replace, FileSystem.exists(url) {
            throw keyExists
        }
        let identity = NativeIdentity(postQuantum: postQuantum)
        let text = """
            # brados age identity of profile '\(profile.rawValue)'
            # created: \(ISO8601DateFormatter().string(from: now))
            # public key: \(identity.recipient.string)
            \(identity.string)

            """
        try FileSystem.createDirectory(url.deletingLastPathComponent())
        if replace {
            try AtomicFile.write(Data(text.utf8), to: url, mode: 0o600, durable: true)
            return identity
        }
        // Created exclusively: of two `keys generate` at once, one gets "already has a key".
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { throw keyExists }
            throw StorageError.io(operation: "create", path: url.path, errno: errno)
        }
        defer { close(fd) }
        do {
            try FileDescriptorSink(fd).write(Array(text.utf8))
            guard fsync(fd) == 0 else { throw StorageError.io(operation: "fsync", path: url.path, errno: errno) }
        } catch {
            unlink(url.path)
            throw error
        }
        return identity
    }

    /// The refusal to replace the key, naming it (shortened) or saying it cannot be read.
    private var keyExists: ArchiveError {
        ArchiveError.keyExists(profile: profile.rawValue, recipient: (try? load())?.recipient.abbreviated ?? "unreadable: \(url.path)")
    }

    /// Deletes the key file; a missing one is not an error.
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public func remove() throws { try FileSystem.remove(url) }
}
