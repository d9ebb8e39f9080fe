import Foundation
import Logging

/// Where a profile's credentials live: `<config>/credentials/<profile>.json`, mode 0600,
/// never under the cache root (so exports and cache tools never see them).
/// Thread-safe; writes are atomic.
public struct CredentialStore: Sendable {
    public let profile: ProfileName
    public let url: URL
    /// The lock that serializes token refreshes across processes (refresh tokens are single-use).
    public let lockURL: URL
    private let logger: Logger

    public init(paths: Paths, profile: ProfileName, logger: Logger = Logger(label: "brados.auth")) {
        self.profile = profile
        url = paths.credentialsDirectory.appendingPathComponent("\(profile.rawValue).json")
        lockURL = paths.credentialsDirectory.appendingPathComponent(".\(profile.rawValue).lock")
        self.logger = logger
    }

    /// The stored credentials, for display and checks: empty when missing, undecodable or
    /// unreadable. Anything that writes credentials back uses ``loadForUpdate()``.
    public func load() -> CredentialSet {
        (try? loadForUpdate()) ?? CredentialSet()
    }

    /// The stored credentials, before changing and saving them: empty only when the file is
    /// absent or does not decode. An I/O error (permissions, EIO) is thrown, so a session
    /// that could not be read is never overwritten by an empty set.
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public func loadForUpdate() throws -> CredentialSet {
        guard let data = try AtomicFile.readIfPresent(url) else { return CredentialSet() }
        do {
            return try JSONCoding.decode(CredentialSet.self, from: data)
        } catch {
            logger.warning("credentials file unreadable; treated as signed out", metadata: ["path": "\(url.path)"])
            return CredentialSet()
        }
    }

    /// Writes the credentials (0600).
    /// - Throws: ``StorageError``.
    public func save(_ credentials: CredentialSet) throws {
        try AtomicFile.write(try JSONCoding.encode(credentials), to: url, mode: 0o600)
    }

    /// Deletes the credentials. The refresh lock's file stays (empty): another process may be
    /// waiting on it, and a new file would be a second lock.
    /// - Throws: ``StorageError``.
    public func remove() throws {
        try FileSystem.remove(url)
    }
}
