/// Supplies access tokens to the ``APIClient`` and renews them after a 401.
public protocol Authenticating: Sendable {
    /// The current access token.
    /// - Throws: ``AuthError/notSignedIn(profile:)``.
    func accessToken() async throws -> String
    /// Renews the session after `rejected` was refused, and returns the new token.
    /// If another process already renewed it, returns that token without a request.
    /// - Throws: ``AuthError/sessionExpired(profile:service:)``, ``NetworkError``.
    func renewToken(replacing rejected: String) async throws -> String
    /// The service to name when the session must be signed in again (`--service NAME`);
    /// `nil` for the account service.
    var signInService: String? { get }
}

extension Authenticating {
    /// The service to name when the session must be signed in again (`--service NAME`);
    /// `nil` for the account service.
    public var signInService: String? { nil }
}
