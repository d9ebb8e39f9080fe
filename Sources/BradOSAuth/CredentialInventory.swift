import Foundation

/// Where each of a profile's secrets lives, and whether the keyring answered: what `auth
/// status`, `auth migrate` and `doctor` show. Reading it never changes anything.
public struct CredentialInventory: Codable, Sendable, Equatable {
    /// One secret: a session (`account`, a service) or an attachment (`service/name`).
    public struct Secret: Codable, Sendable, Equatable {
        public var name: String
        public var location: SecretLocation
        /// Why it cannot be read now (a locked keyring); `nil` when it can.
        public var problem: String?
    }
    /// `credentials.store`.
    public var store: CredentialStoreChoice
    /// `answers`, or why the keyring could not be read.
    public var keyring: String
    public var keyringAnswers: Bool
    /// The credentials file (which also indexes what is in the keyring).
    public var file: String
    public var secrets: [Secret]

    /// Where `auth migrate --to` would take the misplaced secrets; `nil` when there are none.
    public var migrationTarget: SecretLocation? {
        misplaced.first.map { $0.location == .file ? .keyring : .file }
    }

    /// Secrets that live where `store` would not put a new one (`file` with `store` = keyring…).
    public var misplaced: [Secret] {
        switch store {
        case .auto: keyringAnswers ? secrets.filter { $0.location == .file } : []
        case .keyring: secrets.filter { $0.location == .file }
        case .file: secrets.filter { $0.location == .keyring }
        }
    }
}

extension CredentialStore {
    /// Where each secret of the profile lives (the keyring asked, whatever ``choice`` says).
    public func inventory() -> CredentialInventory { readAll().inventory }

    /// What ``load()`` and ``inventory()`` give, from one read (one keyring search).
    /// `askKeyring` false: the keyring only where ``choice`` or the file's index may put
    /// secrets there (never with `file` and nothing indexed).
    public func readAll(askKeyring: Bool = true) -> (credentials: CredentialSet, inventory: CredentialInventory) {
        let snapshot = (try? snapshot(askKeyring: askKeyring))
            ?? Snapshot(file: StoredFile(), items: [], keyringFailure: nil, profile: profile.rawValue, keyringAsked: askKeyring)
        let asked = snapshot.keyringAsked
        var secrets: [CredentialInventory.Secret] = []
        let sessions = try? snapshot.credentials(strict: false)
        if let sessions {
            for (slot, location) in sessions.locations.sorted(by: { $0.key < $1.key }) {
                secrets.append(.init(name: slot, location: location, problem: sessions.unreadable[slot]?.reason))
            }
        }
        var attachments: [String: SecretLocation] = [:]
        for (service, name) in fileAttachments() { attachments["\(service)/\(name)"] = .file }
        for slot in snapshot.file.keyring where slot.contains("/") { attachments[slot] = .keyring }
        for item in snapshot.items where item.attributes.profile == profile.rawValue {
            if let service = item.attributes.service, let name = item.attributes.attachment, attachments["\(service)/\(name)"] == nil {
                attachments["\(service)/\(name)"] = .keyring
            }
        }
        for (slot, location) in attachments.sorted(by: { $0.key < $1.key }) {
            let unreadable = location == .keyring && (snapshot.keyringFailure != nil || snapshot.item(slot)?.secret == nil)
            secrets.append(.init(name: slot, location: location, problem: unreadable ? (snapshot.keyringFailure ?? .locked).reason : nil))
        }
        return (sessions?.set ?? CredentialSet(),
                CredentialInventory(store: choice, keyring: snapshot.keyringFailure?.reason ?? (asked ? "answers" : "not asked (credentials.store file)"),
                                    keyringAnswers: asked && snapshot.keyringFailure == nil, file: url.path, secrets: secrets))
    }
}
