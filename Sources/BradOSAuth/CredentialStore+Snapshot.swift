import BradOSStorage
import BradOSTerminal
import Foundation

extension CredentialSet {
    /// The slot of the account's session (a service's is its name).
    public static let accountSlot = "account"

    /// Every session with its slot: the account's, then the services' by name.
    public var slots: [(slot: String, credential: Credential)] {
        (account.map { [(Self.accountSlot, $0)] } ?? []) + services.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Puts a session in its slot.
    mutating func set(_ slot: String, _ credential: Credential) {
        if slot == Self.accountSlot { account = credential } else { services[slot] = credential }
    }
}

extension Credential {
    /// A secret read from the keyring: brados's JSON, or a bare token stored by hand
    /// (`secret-tool store`), which is bound to no server (it goes to the service's own).
    static func fromKeyring(_ secret: String) -> Credential {
        if let credential = try? JSONCoding.decode(Credential.self, from: Data(secret.utf8)) { return credential }
        return Credential(accessToken: secret.trimmingCharacters(in: .whitespacesAndNewlines), refreshToken: nil, expiresAt: nil,
                          user: "(stored in the keyring by hand)", userID: nil, server: "", obtainedAt: Date(timeIntervalSince1970: 0))
    }
}

/// Who a session in the keyring is, never its tokens: what a read for display needs (the
/// account's id, the user name, the server), kept beside the index so such a read never
/// loads libsecret.
struct KeyringIdentity: Codable, Equatable {
    var user: String
    var userID: String?
    var server: String
    var expiresAt: Date?
    var obtainedAt: Date

    init(_ credential: Credential) {
        user = credential.user
        userID = credential.userID
        server = credential.server
        expiresAt = credential.expiresAt
        obtainedAt = credential.obtainedAt
    }

    /// The session as a read for display sees it: no token (a request reads the keyring).
    var credential: Credential {
        Credential(accessToken: "", refreshToken: nil, expiresAt: expiresAt, user: user, userID: userID, server: server, obtainedAt: obtainedAt)
    }
}

/// The credentials file: the sessions kept in it, and the index of those in the keyring
/// (slots, and attachments as `service/name`) with who each session is.
struct StoredFile: Codable {
    var account: Credential?
    var services: [String: Credential] = [:]
    var keyring: Set<String> = []
    /// A keyring slot's identity (written with the secret since 0.3; an older file has none,
    /// and a read for display then asks the keyring).
    var identities: [String: KeyringIdentity] = [:]

    init(keyring: Set<String> = [], identities: [String: KeyringIdentity] = [:]) {
        self.keyring = keyring
        self.identities = identities
    }

    enum CodingKeys: String, CodingKey { case account, services, keyring, keyringIdentities }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        account = try container.decodeIfPresent(Credential.self, forKey: .account)
        services = try container.decodeIfPresent([String: Credential].self, forKey: .services) ?? [:]
        keyring = Set(try container.decodeIfPresent([String].self, forKey: .keyring) ?? [])
        identities = (try? container.decodeIfPresent([String: KeyringIdentity].self, forKey: .keyringIdentities)) ?? [:]
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(account, forKey: .account)
        try container.encode(services, forKey: .services)
        if !keyring.isEmpty { try container.encode(keyring.sorted(), forKey: .keyring) }
        let kept = identities.filter { keyring.contains($0.key) }
        if !kept.isEmpty { try container.encode(kept, forKey: .keyringIdentities) }
    }

    /// Whether every session the index puts in the keyring has its identity here.
    var identifiesKeyringSessions: Bool { keyring.allSatisfy { $0.contains("/") || identities[$0] != nil } }

    var credentials: CredentialSet { CredentialSet(account: account, services: services) }

    mutating func set(_ slot: String, _ credential: Credential) {
        if slot == CredentialSet.accountSlot { account = credential } else { services[slot] = credential }
    }
}

/// What the file and the keyring hold, read once.
struct Snapshot {
    var file: StoredFile
    /// The profile's items in the keyring (empty when it was not asked or did not answer).
    var items: [KeyringItem]
    /// Why the keyring could not be read, when it was asked.
    var keyringFailure: KeyringFailure?
    var profile: String
    /// Whether the keyring was asked (a read for display of sessions the index identifies is not).
    var keyringAsked = false

    /// The item of a slot (`service` or `service/attachment`).
    func item(_ slot: String) -> KeyringItem? {
        let (service, attachment) = CredentialStore.split(slot)
        return items.first { $0.attributes.profile == profile && $0.attributes.service == service && $0.attributes.attachment == attachment }
    }

    /// Where a slot's secret lives now; `nil` when it is nowhere.
    func location(of slot: String) -> SecretLocation? {
        if file.keyring.contains(slot) { return .keyring }
        if file.credentials.slots.contains(where: { $0.slot == slot }) { return .file }
        return item(slot) != nil ? .keyring : nil
    }

    /// A slot's secret in the keyring: the text; `nil` when the item is gone; thrown when the
    /// keyring cannot give it (locked, not answering).
    func keyringSecret(_ slot: String) throws -> String? {
        if let item = item(slot) {
            if let secret = item.secret { return secret }
            throw AuthError.keyring(.locked)
        }
        // Hidden by a locked keyring (its attributes unreadable), or not answering.
        if let keyringFailure { throw AuthError.keyring(keyringFailure) }
        if items.contains(where: { $0.attributes.service == nil }) { throw AuthError.keyring(.locked) }
        return nil
    }

    /// The sessions, each from where it lives; `strict` throws for one the keyring holds and
    /// cannot give, otherwise it is left out (and named in `unreadable`).
    func credentials(strict: Bool) throws -> (set: CredentialSet, locations: [String: SecretLocation], unreadable: [String: KeyringFailure]) {
        var set = CredentialSet()
        var locations: [String: SecretLocation] = [:]
        var unreadable: [String: KeyringFailure] = [:]
        for slot in file.keyring where !slot.contains("/") {
            if !keyringAsked, let identity = file.identities[slot] {
                set.set(slot, identity.credential)
                locations[slot] = .keyring
                continue
            }
            do {
                guard let secret = try keyringSecret(slot) else { continue }
                set.set(slot, Credential.fromKeyring(secret))
                locations[slot] = .keyring
            } catch AuthError.keyring(let failure) {
                if strict { throw AuthError.keyring(failure) }
                unreadable[slot] = failure
                locations[slot] = .keyring
            }
        }
        for (slot, credential) in file.credentials.slots where locations[slot] == nil {
            set.set(slot, credential)
            locations[slot] = .file
        }
        // Items stored by hand (`secret-tool store`), or left by a migration that was stopped.
        for item in items where item.attributes.profile == profile && item.attributes.attachment == nil {
            guard let slot = item.attributes.service, locations[slot] == nil else { continue }
            locations[slot] = .keyring
            if let secret = item.secret { set.set(slot, Credential.fromKeyring(secret)) } else { unreadable[slot] = .locked }
        }
        return (set, locations, unreadable)
    }
}

extension CredentialStore {
    /// The file and, when it may hold any of the profile's secrets, the keyring: when asked
    /// (`auth status`, `auth migrate`), when the file's index names a secret there, or, for
    /// `handStored`, where new secrets may go there (an item stored by hand with `secret-tool`).
    /// A read for display (``load()``) passes `handStored: false`: `brados today` loads no
    /// libsecret for a session the file holds, nor for one the index identifies (who it is,
    /// without its tokens).
    func snapshot(askKeyring: Bool = false, handStored: Bool = true) throws -> Snapshot {
        let file = try readFile()
        var snapshot = Snapshot(file: file, items: [], keyringFailure: nil, profile: profile.rawValue)
        let indexed = !file.keyring.isEmpty && (handStored || !file.identifiesKeyringSessions)
        guard askKeyring || indexed || (handStored && choice != .file) else { return snapshot }
        snapshot.keyringAsked = true
        do {
            snapshot.items = try keyring.search(KeyringAttributes(profile: profile.rawValue))
        } catch AuthError.keyring(let failure) {
            snapshot.keyringFailure = failure
            logger.debug("keyring not read", metadata: ["reason": "\(failure.reason)"])
        }
        return snapshot
    }

    /// The credentials file; empty when absent or undecodable (an I/O error is thrown).
    func readFile() throws -> StoredFile {
        guard let data = try AtomicFile.readIfPresent(url) else { return StoredFile() }
        do {
            return try JSONCoding.decode(StoredFile.self, from: data)
        } catch {
            logger.warning("credentials file unreadable; treated as signed out", metadata: ["path": "\(url.path)"])
            return StoredFile()
        }
    }

    /// Writes the credentials file (0600).
    func write(_ file: StoredFile) throws {
        try AtomicFile.write(try JSONCoding.encode(file), to: url, mode: 0o600)
    }
}
