import Foundation

/// The system keyring: items of text, each found by its attributes (the freedesktop Secret
/// Service's model, which GNOME Keyring and KeePassXC serve and `secret-tool` and seahorse
/// show). brados's items carry `application=brados`, `profile` and `service` (and
/// `attachment` for a secret a service keeps beside its session).
///
/// ``SecretServiceKeyring`` is the default; tests give ``CredentialStore`` their own.
public protocol Keyring: Sendable {
    /// Every item whose attributes include `attributes` (locked ones too, without their secret).
    /// - Throws: ``AuthError/keyring(_:)``.
    func search(_ attributes: KeyringAttributes) throws -> [KeyringItem]
    /// Stores `secret` under `attributes`, replacing the item that has exactly them.
    /// - Throws: ``AuthError/keyring(_:)``.
    func store(_ secret: String, label: String, attributes: KeyringAttributes) throws
    /// Removes every item whose attributes include `attributes`.
    /// - Throws: ``AuthError/keyring(_:)``.
    func clear(_ attributes: KeyringAttributes) throws
}

/// The attributes of brados's items; `nil` leaves one out (of a search: any value matches).
public struct KeyringAttributes: Sendable, Hashable, CustomStringConvertible {
    public static let application = "brados"
    public var profile: String?
    public var service: String?
    public var attachment: String?

    public init(profile: String?, service: String? = nil, attachment: String? = nil) {
        self.profile = profile
        self.service = service
        self.attachment = attachment
    }

    /// In the order of the schema: application, profile, service, attachment.
    public var values: [String?] { [Self.application, profile, service, attachment] }

    /// Whether an item with `other` attributes matches this search (every value given is equal).
    public func matches(_ other: KeyringAttributes) -> Bool {
        (profile == nil || profile == other.profile) && (service == nil || service == other.service)
            && (attachment == nil || attachment == other.attachment)
    }

    /// `secret-tool`'s words for it: `application brados profile default service api`.
    public var description: String {
        zip(["application", "profile", "service", "attachment"], values).compactMap { name, value in value.map { "\(name) \($0)" } }
            .joined(separator: " ")
    }
}

/// An item a search found.
public struct KeyringItem: Sendable, Equatable {
    /// Its attributes; `nil` values where a locked keyring hides them.
    public var attributes: KeyringAttributes
    /// Its secret; `nil` when the item is locked.
    public var secret: String?

    public init(attributes: KeyringAttributes, secret: String?) {
        self.attributes = attributes
        self.secret = secret
    }
}

/// Why the keyring could not do what was asked.
public enum KeyringFailure: Sendable, Equatable {
    /// libsecret is not installed.
    case noLibrary(String)
    /// No keyring answered: no D-Bus session bus, or no Secret Service on it.
    case noService(String)
    /// The keyring is locked (brados never prompts to unlock it).
    case locked
    /// It did not answer within the time brados waits.
    case timedOut(seconds: Int)
    /// Anything else it said.
    case failed(String)

    /// Whether no keyring is there at all (`auto` then uses the file).
    public var isAbsent: Bool {
        switch self {
        case .noLibrary, .noService: true
        default: false
        }
    }

    /// A few words: why.
    public var reason: String {
        switch self {
        case let .noLibrary(message): "libsecret is not installed (\(message))"
        case let .noService(message): "no keyring answered on the session bus (\(message))"
        case .locked: "the keyring is locked"
        case let .timedOut(seconds): "the keyring did not answer within \(seconds) s"
        case let .failed(message): "the keyring failed: \(message)"
        }
    }
}

/// No keyring at all (every call says none answers): what a store without one sees, and the
/// default of environments built by tests, so that they never touch the user's keyring.
public struct NoKeyring: Keyring {
    public init() {}
    public func search(_ attributes: KeyringAttributes) throws -> [KeyringItem] { throw AuthError.keyring(.noService("no keyring given")) }
    public func store(_ secret: String, label: String, attributes: KeyringAttributes) throws {
        throw AuthError.keyring(.noService("no keyring given"))
    }
    public func clear(_ attributes: KeyringAttributes) throws { throw AuthError.keyring(.noService("no keyring given")) }
}
