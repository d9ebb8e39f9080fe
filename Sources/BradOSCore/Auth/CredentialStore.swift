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

    /// Deletes the credentials and their attachments. The refresh lock's file stays (empty):
    /// another process may be waiting on it, and a new file would be a second lock.
    /// - Throws: ``StorageError``.
    public func remove() throws {
        try FileSystem.remove(url)
        try FileSystem.remove(attachmentsDirectory)
    }

    // MARK: Attachments

    /// `<config>/credentials/<profile>.d/`: secrets services keep beside their sessions.
    var attachmentsDirectory: URL {
        url.deletingLastPathComponent().appendingPathComponent("\(profile.rawValue).d", isDirectory: true)
    }

    /// `<config>/credentials/<profile>.d/<service>.<name>.json`: a secret a service keeps
    /// beside its session (a Plex media server's own token and addresses, which must come from
    /// plex.tv and never from a cache or an archive). Mode 0600; removed with the credentials.
    public func attachmentURL(_ name: String, of service: Service) -> URL {
        attachmentsDirectory.appendingPathComponent("\(service.rawValue).\(name).json")
    }

    /// An attachment, decoded; `nil` when absent or unreadable.
    public func attachment<T: Decodable>(_ type: T.Type, _ name: String, of service: Service) -> T? {
        guard let data = try? AtomicFile.readIfPresent(attachmentURL(name, of: service)) else { return nil }
        return try? JSONCoding.decode(T.self, from: data)
    }

    /// Writes an attachment (0600, in a 0700 folder).
    /// - Throws: ``StorageError``.
    public func saveAttachment<T: Encodable>(_ value: T, _ name: String, of service: Service) throws {
        try FileSystem.createDirectory(attachmentsDirectory)
        try AtomicFile.write(try JSONCoding.encode(value), to: attachmentURL(name, of: service), mode: 0o600)
    }

    /// Removes every attachment of a service.
    /// - Throws: ``StorageError``.
    public func removeAttachments(of service: Service) throws {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: attachmentsDirectory.path)) ?? []
        where name.hasPrefix("\(service.rawValue).") && name.hasSuffix(".json") {
            try FileSystem.remove(attachmentsDirectory.appendingPathComponent(name))
        }
    }
}
