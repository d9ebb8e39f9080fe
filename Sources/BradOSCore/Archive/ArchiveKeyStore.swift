import AgeEncryption
import Foundation

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
    public func load() throws -> X25519Identity? {
        guard let data = try AtomicFile.readIfPresent(url) else { return nil }
        do { return try AgeIdentityFile.parse(String(decoding: data, as: UTF8.self)).first } catch {
            throw ArchiveError.invalidKeys(source: url.path, detail: "\(error)")
        }
    }

    /// Creates a key; an existing one is replaced only with `replace`.
    /// - Throws: ``ArchiveError/keyExists(profile:recipient:)``, ``StorageError``.
    public func generate(replace: Bool, now: Date) throws -> X25519Identity {
        if !replace, let existing = try? load() {
            throw ArchiveError.keyExists(profile: profile.rawValue, recipient: existing.recipient.string)
        }
        let identity = X25519Identity()
        let text = """
            # brados age identity of profile '\(profile.rawValue)'
            # created: \(ISO8601DateFormatter().string(from: now))
            # public key: \(identity.recipient.string)
            \(identity.string)

            """
        try FileSystem.createDirectory(url.deletingLastPathComponent())
        try AtomicFile.write(Data(text.utf8), to: url, mode: 0o600, durable: true)
        return identity
    }

    public func remove() throws { try FileSystem.remove(url) }
}
