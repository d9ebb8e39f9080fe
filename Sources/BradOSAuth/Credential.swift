import BradOSNetworking
import Foundation

/// A signed-in session with one service. Its description never shows the tokens.
public struct Credential: Codable, Sendable, Equatable, CustomStringConvertible {
    public var accessToken: String
    public var refreshToken: String?
    /// When the access token expires, if the server said.
    public var expiresAt: Date?
    /// The user name shown in `auth status`.
    public var user: String
    /// The server's id of the account (used to tell accounts apart, e.g. in exports).
    public var userID: String?
    /// The server it was obtained from (for display; "embedded" for the built-in backend).
    public var server: String
    public var obtainedAt: Date

    public init(accessToken: String, refreshToken: String?, expiresAt: Date?, user: String, userID: String?, server: String, obtainedAt: Date) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.user = user
        self.userID = userID
        self.server = server
        self.obtainedAt = obtainedAt
    }

    public var description: String { "Credential(user: \(user), server: \(server), tokens: <redacted>)" }
}

/// A profile's credentials: the account sign-in, used by every service unless a service
/// has its own (`auth login --service NAME`).
public struct CredentialSet: Codable, Sendable, Equatable {
    public var account: Credential?
    public var services: [String: Credential]

    public init(account: Credential? = nil, services: [String: Credential] = [:]) {
        self.account = account
        self.services = services
    }

    /// The credential a service uses.
    public func credential(for service: Service) -> Credential? { services[service.rawValue] ?? account }

    /// The remote account id per service signed in (`api` for the account's): what an archive
    /// records as whose data it holds, and what a queued change is checked against.
    public var accounts: [String: String] {
        var accounts: [String: String] = [:]
        if let id = account?.userID { accounts[Service.account.rawValue] = id }
        for (service, credential) in services { if let id = credential.userID { accounts[service] = id } }
        return accounts
    }

    /// The credential a service uses; a `dedicated` service (one with its own accounts, such
    /// as Supabase) only ever uses its own slot, never the BradOS account's.
    public func credential(for service: Service, dedicated: Bool) -> Credential? {
        dedicated ? services[service.rawValue] : credential(for: service)
    }

    /// Replaces the credential a service uses, in the slot it came from.
    public mutating func replace(for service: Service, with credential: Credential) {
        if services[service.rawValue] != nil { services[service.rawValue] = credential } else { account = credential }
    }

    public var isEmpty: Bool { account == nil && services.isEmpty }
}

extension Credential {
    /// The marker stored as ``server`` for sessions of the embedded backend (its port changes every run).
    public static let embeddedServer = "embedded"

    /// Whether this session was issued by `server` (or by the embedded backend, when `embedded`).
    /// A token stored in the keyring by hand names no server: it is the service's own.
    public func isIssued(by server: URL, embedded: Bool) -> Bool {
        if self.server.isEmpty { return true }
        if embedded { return self.server == Self.embeddedServer }
        return Self.normalized(self.server) == Self.normalized(server.absoluteString)
    }

    static func normalized(_ url: String) -> String {
        var text = url.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
