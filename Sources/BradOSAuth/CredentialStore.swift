import BradOSStorage
import BradOSTerminal
import Foundation
import Logging
import Synchronization

/// `credentials.store`: where new secrets go.
public enum CredentialStoreChoice: String, Sendable, CaseIterable, Codable {
    /// The keyring when one answers, else the file, saying so on the command that stored it.
    case auto
    /// The system keyring only: a command that must store or read a secret there fails when it cannot.
    case keyring
    /// Files of mode 0600 only (the keyring is asked only to erase, by `auth logout`).
    case file
}

/// Where one secret lives.
public enum SecretLocation: String, Sendable, Codable {
    case keyring, file
}

/// Where a profile's credentials live: each secret either in the system keyring (``Keyring``,
/// attributes `application=brados`, `profile`, `service`) or in `<config>/credentials/<profile>.json`
/// (mode 0600) — never under the cache root, so exports and cache tools never see them.
///
/// The file also holds the index of what is in the keyring (names, never secrets), so brados
/// knows a secret is there even when the keyring does not answer, and never takes its absence
/// for a sign-out. A secret stays where it lives when it changes (a renewed token); a new one
/// goes where `credentials.store` says; `auth migrate` moves them. Writes are atomic; callers
/// that read, change and save hold ``lockURL``.
public struct CredentialStore: Sendable {
    public let profile: ProfileName
    public let url: URL
    /// The lock that serializes token refreshes across processes (refresh tokens are single-use).
    public let lockURL: URL
    /// Where new secrets go.
    public let choice: CredentialStoreChoice
    let keyring: any Keyring
    /// Says that `auto` put a secret in the file (the environment says it once per command).
    let notify: @Sendable (String) -> Void
    let logger: Logger
    /// The last ``loadForUpdate()`` and the credentials file it was read with: every request
    /// re-reads the token, and a keyring read is a D-Bus round trip. Every save writes a new
    /// file, so another identity means another read.
    private let lastRead = LastRead()

    public init(paths: Paths, profile: ProfileName, choice: CredentialStoreChoice = .file, keyring: any Keyring = NoKeyring(),
                notify: @escaping @Sendable (String) -> Void = { _ in }, logger: Logger = Logger(label: "brados.auth")) {
        self.profile = profile
        url = paths.credentialsDirectory.appendingPathComponent("\(profile.rawValue).json")
        lockURL = paths.credentialsDirectory.appendingPathComponent(".\(profile.rawValue).lock")
        self.choice = choice
        self.keyring = keyring
        self.notify = notify
        self.logger = logger
    }

    /// The stored credentials, for display and checks: what can be read (a secret in a
    /// keyring that does not answer is left out). A session the keyring holds comes without its
    /// tokens when the file identifies it (the keyring is not asked). Anything that sends a
    /// token or writes credentials back uses ``loadForUpdate()``.
    public func load() -> CredentialSet {
        guard let snapshot = try? snapshot(handStored: false) else { return CredentialSet() }
        return (try? snapshot.credentials(strict: false).set) ?? CredentialSet()
    }

    /// The stored credentials, before changing and saving them: empty only when nothing is
    /// stored. An I/O error, or a secret the index puts in a keyring that cannot be read
    /// (locked, gone), is thrown, so a session that could not be read is never overwritten.
    /// - Throws: ``StorageError/io(operation:path:errno:)``, ``AuthError/keyring(_:)``.
    public func loadForUpdate() throws -> CredentialSet {
        let identity = FileSystem.identity(of: url) ?? "none"
        if let last = lastRead.value.withLock({ $0 }), last.identity == identity { return last.set }
        let set = try snapshot().credentials(strict: true).set
        lastRead.value.withLock { $0 = (identity, set) }
        return set
    }

    /// Writes the credentials: each secret where it lives, a new one where ``choice`` says
    /// (`auto`: the keyring, or the file when none answers, said once through `notify`); a
    /// secret no longer in `credentials` is removed from wherever it was.
    /// - Throws: ``StorageError``, ``AuthError/keyring(_:)`` (`keyring`, or a secret that lives there).
    public func save(_ credentials: CredentialSet) throws {
        var snapshot = try snapshot()
        var file = StoredFile(keyring: snapshot.file.keyring, identities: snapshot.file.identities)
        var gone = Set(snapshot.file.keyring.filter { !$0.contains("/") })
        for (slot, credential) in credentials.slots {
            gone.remove(slot)
            let location = try snapshot.location(of: slot) ?? newLocation(for: slot, snapshot: &snapshot)
            if location == .keyring {
                do {
                    try keyring.store(String(decoding: try JSONCoding.encode(credential), as: UTF8.self),
                                      label: label(slot, user: credential.user), attributes: attributes(slot))
                    file.keyring.insert(slot)
                    file.identities[slot] = KeyringIdentity(credential)
                    continue
                } catch AuthError.keyring(let failure) where choice == .auto && !snapshot.file.keyring.contains(slot) {
                    fellBack(slot, failure)
                }
            }
            file.set(slot, credential)
            file.keyring.remove(slot)
            file.identities[slot] = nil
        }
        file.keyring.subtract(gone)
        try write(file)
        for slot in gone { try keyring.clear(attributes(slot)) }
    }

    /// Deletes every secret of the profile, from the keyring and then from the file, and the
    /// attachments. The keyring first: when it cannot erase (locked, gone while it holds some),
    /// nothing is erased, so no item is left behind that a later command would take for a
    /// session. The refresh lock's file stays (empty): another process may be waiting on it,
    /// and a new file would be a second lock.
    /// - Throws: ``AuthError/keyring(_:)`` (nothing erased), ``StorageError``.
    public func remove() throws {
        let indexed = !((try? readFile())?.keyring.isEmpty ?? true)
        let all = KeyringAttributes(profile: profile.rawValue)
        do {
            try keyring.clear(all)
            // A locked keyring removes nothing and says nothing: look.
            if !(try keyring.search(all)).isEmpty { throw AuthError.keyring(.locked) }
        } catch AuthError.keyring(let failure) where failure.isAbsent && !indexed {
            logger.debug("no keyring to erase from", metadata: ["reason": "\(failure.reason)"])
        }
        try FileSystem.removeDurably(url)
        try FileSystem.removeDurably(attachmentsDirectory)
    }

    /// The slots stored, by the file alone (its entries and its keyring index); no keyring asked.
    public func storedSlots() -> Set<String> {
        guard let file = try? readFile() else { return [] }
        return Set(file.credentials.slots.map(\.slot)).union(file.keyring.filter { !$0.contains("/") })
    }

    /// Where a new secret goes: ``choice``, with `auto` choosing the keyring if it answered.
    func newLocation(for slot: String, snapshot: inout Snapshot) throws -> SecretLocation {
        switch choice {
        case .file: return .file
        case .keyring:
            if let failure = snapshot.keyringFailure { throw AuthError.keyring(failure) }
            return .keyring
        case .auto:
            guard let failure = snapshot.keyringFailure else { return .keyring }
            fellBack(slot, failure)
            return .file
        }
    }

    /// `auto` put a secret in the file: says so.
    func fellBack(_ slot: String, _ failure: KeyringFailure) {
        notify("""
            the keyring did not take the \(slot == CredentialSet.accountSlot ? "account" : slot) secret (\(failure.reason)); \
            it is in \(url.path) (mode 0600). Move it once a keyring answers: brados auth migrate --to keyring \
            (or keep files without this notice: brados config set credentials.store file)
            """)
    }

    /// The label seahorse shows: a session's (with its user), or an attachment's.
    func label(_ slot: String, user: String? = nil) -> String {
        let (service, attachment) = Self.split(slot)
        if let attachment { return "brados \(service) \(attachment) of profile \(profile.rawValue)" }
        return "brados \(service) session of profile \(profile.rawValue)" + (user.map { " (\($0))" } ?? "")
    }

    func attributes(_ slot: String) -> KeyringAttributes {
        let (service, attachment) = Self.split(slot)
        return KeyringAttributes(profile: profile.rawValue, service: service, attachment: attachment)
    }

    /// A slot's service and attachment: `account`, `plex`, `plex/server`.
    static func split(_ slot: String) -> (service: String, attachment: String?) {
        guard let slash = slot.firstIndex(of: "/") else { return (slot, nil) }
        return (String(slot[..<slash]), String(slot[slot.index(after: slash)...]))
    }
}

/// ``CredentialStore``'s last strict read, shared by its copies.
private final class LastRead: Sendable {
    let value = Mutex<(identity: String, set: CredentialSet)?>(nil)
}
