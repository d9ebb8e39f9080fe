import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

/// What `brados auth migrate` did for one profile.
public struct CredentialMigration: Codable, Sendable, Equatable {
    public var profile: String
    public var to: SecretLocation
    /// The secrets moved: slots (`account`, a service) and attachments (`service/name`).
    public var moved: [String]
    /// Those already there.
    public var alreadyThere: [String]
}

extension CredentialStore {
    /// Moves every secret of the profile to `target`, losing nothing if it stops halfway: each
    /// secret is written where it goes and read back before the copy it came from is removed,
    /// and the file's index changes in one atomic write. Run again, it finishes what a stopped
    /// run began. The caller holds ``lockURL``.
    /// - Throws: ``AuthError/keyring(_:)`` (the keyring must answer when it is either end),
    ///   ``StorageError``.
    public func migrate(to target: SecretLocation) throws -> CredentialMigration {
        let snapshot = try snapshot(askKeyring: true)
        let inKeyring = !snapshot.file.keyring.isEmpty || !snapshot.items.isEmpty
        if let failure = snapshot.keyringFailure, target == .keyring || !snapshot.file.keyring.isEmpty {
            throw AuthError.keyring(failure)
        }
        // An index entry the keyring answered without (another keyring on the bus, a daemon
        // started afresh): moving now would drop the entry while the secret may be elsewhere.
        if let missing = snapshot.file.keyring.sorted().first(where: { snapshot.item($0) == nil }), snapshot.keyringFailure == nil,
           !snapshot.items.contains(where: { $0.attributes.service == nil }) {
            throw AuthError.keyring(.failed("the keyring answered without the \(missing) secret the credentials file says it holds (another keyring on the bus?); nothing was moved"))
        }
        let sessions = try snapshot.credentials(strict: true)
        if let (_, failure) = sessions.unreadable.first { throw AuthError.keyring(failure) }
        // Every attachment, wherever it is.
        var attachments: [String: (data: Data, location: SecretLocation)] = [:]
        for (service, name) in fileAttachments() {
            if let data = try AtomicFile.readIfPresent(attachmentURL(name, of: Service(rawValue: service))) {
                attachments["\(service)/\(name)"] = (data, .file)
            }
        }
        for item in snapshot.items where item.attributes.profile == profile.rawValue && item.attributes.attachment != nil {
            guard let service = item.attributes.service, let name = item.attributes.attachment else { continue }
            let slot = "\(service)/\(name)"
            guard snapshot.file.keyring.contains(slot) || attachments[slot] == nil else { continue }
            guard let secret = item.secret else { throw AuthError.keyring(.locked) }
            attachments[slot] = (Data(secret.utf8), .keyring)
        }
        var report = CredentialMigration(profile: profile.rawValue, to: target, moved: [], alreadyThere: [])
        for (slot, _) in sessions.set.slots { sessions.locations[slot] == target ? report.alreadyThere.append(slot) : report.moved.append(slot) }
        for (slot, attachment) in attachments.sorted(by: { $0.key < $1.key }) {
            attachment.location == target ? report.alreadyThere.append(slot) : report.moved.append(slot)
        }

        switch target {
        case .keyring:
            var written: [String: String] = [:]
            for (slot, credential) in sessions.set.slots {
                written[slot] = String(decoding: try JSONCoding.encode(credential), as: UTF8.self)
                if sessions.locations[slot] != .keyring || !snapshot.file.keyring.contains(slot) {
                    try keyring.store(written[slot]!, label: label(slot, user: credential.user), attributes: attributes(slot))
                }
            }
            for (slot, attachment) in attachments {
                written[slot] = String(decoding: attachment.data, as: UTF8.self)
                if attachment.location == .file { try keyring.store(written[slot]!, label: label(slot), attributes: attributes(slot)) }
            }
            // Read back before anything is removed.
            let stored = try self.snapshot(askKeyring: true)
            for (slot, secret) in written where (try stored.keyringSecret(slot)) != secret {
                throw AuthError.keyring(.failed("the \(slot) secret did not read back as it was written; the file still holds it"))
            }
            var identities: [String: KeyringIdentity] = [:]
            for (slot, credential) in sessions.set.slots { identities[slot] = KeyringIdentity(credential) }
            try write(StoredFile(keyring: Set(written.keys), identities: identities))
            for (slot, attachment) in attachments where attachment.location == .file { try FileSystem.remove(attachmentURL(slot)) }
        case .file:
            for (slot, attachment) in attachments where attachment.location == .keyring {
                try FileSystem.createDirectory(attachmentsDirectory)
                try AtomicFile.write(attachment.data, to: attachmentURL(slot), mode: 0o600)
            }
            var file = StoredFile()
            for (slot, credential) in sessions.set.slots { file.set(slot, credential) }
            try write(file)
            if inKeyring {
                try keyring.clear(KeyringAttributes(profile: profile.rawValue))
                if !(try keyring.search(KeyringAttributes(profile: profile.rawValue))).isEmpty { throw AuthError.keyring(.locked) }
            }
        }
        return report
    }
}
