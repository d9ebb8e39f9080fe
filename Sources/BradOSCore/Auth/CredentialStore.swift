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

    /// The stored credentials; empty when missing or unreadable.
    public func load() -> CredentialSet {
        guard let data = try? AtomicFile.readIfPresent(url) else { return CredentialSet() }
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

    /// Deletes the credentials and the refresh lock.
    /// - Throws: ``StorageError``.
    public func remove() throws {
        try FileSystem.remove(url)
        try FileSystem.remove(lockURL)
    }
}
