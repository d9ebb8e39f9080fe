import BradOSNetworking
import Foundation

/// How `brados auth login --service NAME` signs in to a service whose accounts live on a
/// server of their own: Plex accounts on plex.tv, whose tokens then open the user's media
/// servers. A plugin declares it in ``ServiceDescription/signIn``.
///
/// Three ways in, as the service's own apps offer them: linking with a code the user approves
/// in a browser (the default, like `gh auth login`'s device flow), an existing token, and a
/// user name and password (with a verification code for two-factor accounts).
public protocol ServiceSignIn: Sendable {
    /// Where sign-in requests go (the service's account server, e.g. `https://plex.tv`).
    /// - Throws: ``ConfigError`` for an invalid setting.
    func accountServer() throws -> URL
    /// Signs in with a user name and password, and a two-factor code when the account has one.
    /// - Throws: ``AuthError/invalidCredentials(user:)``, ``AuthError/verificationCodeNeeded(user:service:wrong:)``, ``NetworkError``.
    func signIn(user: String, password: String, code: String?, transport: any HTTPTransport) async throws -> Credential
    /// Checks a token the user already has and returns the session it opens.
    /// - Throws: ``AuthError/tokenRejected(service:)``, ``NetworkError``.
    func signIn(token: String, transport: any HTTPTransport) async throws -> Credential
    /// Asks for a code to approve in a browser.
    /// - Throws: ``NetworkError``.
    func startLink(transport: any HTTPTransport) async throws -> SignInLink
    /// Where a link stands: still waiting, approved (the session), or expired.
    /// - Throws: ``NetworkError``.
    func checkLink(id: String, transport: any HTTPTransport) async throws -> SignInLink.State
    /// Revokes a session at the server that issued it (`auth logout`); whether it did.
    /// - Throws: ``NetworkError`` (logout erases the local session either way).
    func signOut(_ credential: Credential, transport: any HTTPTransport) async throws -> Bool
    /// Where a token given with `--token-stdin` is checked: the account server, or a server the
    /// service is configured to use directly.
    /// - Throws: ``ConfigError`` for an invalid setting.
    func tokenServer() throws -> URL
}

extension ServiceSignIn {
    /// Where a token given with `--token-stdin` is checked (and then used): the account server.
    /// - Throws: what ``accountServer()`` throws (``ConfigError`` for an invalid setting).
    public func tokenServer() throws -> URL { try accountServer() }

    /// No sign-out route: the session is only erased locally.
    /// - Throws: nothing: this default returns `false` at once.
    public func signOut(_ credential: Credential, transport: any HTTPTransport) async throws -> Bool { false }
}

/// A sign-in code waiting for the user's approval.
public struct SignInLink: Codable, Sendable, Equatable {
    /// The id to resume with (`brados auth login --service NAME --pin ID`).
    public var id: String
    /// The code the user sees.
    public var code: String
    /// The page where the user approves it.
    public var url: String
    public var expiresAt: Date

    public init(id: String, code: String, url: String, expiresAt: Date) {
        self.id = id
        self.code = code
        self.url = url
        self.expiresAt = expiresAt
    }

    public enum State: Sendable {
        case waiting(expiresAt: Date)
        case approved(Credential)
        case expired
    }
}

/// Which services sign in at an account server of their own (a ``ServiceSignIn``: a code to
/// approve, a token, a password there), for the "sign in again" advice of ``AuthError``. The
/// composition root binds it with the plugins (`Composition.bind`), so the auth module names
/// no plugin; outside a binding no service has one.
public enum AccountServers {
    @TaskLocal public static var lookup: @Sendable (String) -> Bool = { _ in false }

    /// Whether the service named `name` signs in at an account server of its own.
    public static func has(_ name: String) -> Bool { lookup(name) }
}
