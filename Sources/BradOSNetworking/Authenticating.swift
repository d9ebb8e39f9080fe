/// Supplies access tokens to the ``APIClient`` and renews them after a 401.
public protocol Authenticating: Sendable {
    /// The current access token.
    /// - Throws: ``AuthError/notSignedIn(profile:)``.
    func accessToken() async throws -> String
    /// Renews the session after `rejected` was refused, and returns the new token.
    /// If another process already renewed it, returns that token without a request.
    /// - Throws: ``AuthError/sessionExpired(profile:service:)``, ``NetworkError``.
    func renewToken(replacing rejected: String) async throws -> String
    /// What ``APIClient`` throws when a renewed session is refused again: the authenticator's
    /// own "sign in again" error, naming what to sign in to (`--service NAME`).
    func sessionExpired(profile: String) -> any Error
}
