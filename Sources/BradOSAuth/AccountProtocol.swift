import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

/// How a service signs in and refreshes a session. The core ships ``BradOSAccountProtocol``;
/// a domain whose real service signs in differently provides its own.
public protocol AccountProtocol: Sendable {
    /// Signs in with a user name and password.
    /// - Throws: ``AuthError/invalidCredentials(user:)``, ``NetworkError``.
    func login(user: String, password: String, server: URL, transport: any HTTPTransport) async throws -> Credential
    /// Exchanges the refresh token for a new session. Refresh tokens may be single-use.
    /// - Throws: ``AuthError/sessionExpired(profile:service:)`` when the server refuses, ``NetworkError``.
    func refresh(_ credential: Credential, profile: ProfileName, server: URL, transport: any HTTPTransport) async throws -> Credential
    /// Revokes the session on the server (best effort).
    /// - Throws: ``NetworkError`` when the server cannot be reached (the local session is erased either way).
    func logout(_ credential: Credential, server: URL, transport: any HTTPTransport) async throws
}

/// BradOS REST sign-in: `POST /api/auth/login {username, password}`,
/// `POST /api/auth/refresh {refreshToken}`, `POST /api/auth/logout {refreshToken}`;
/// answers `{accessToken, refreshToken, expiresIn, user: {id, username}}`.
public struct BradOSAccountProtocol: AccountProtocol {
    public var now: @Sendable () -> Date
    public init(now: @escaping @Sendable () -> Date = { Date() }) { self.now = now }

    struct TokenResponse: Decodable {
        struct User: Decodable { var id: String; var username: String }
        var accessToken: String
        var refreshToken: String
        var expiresIn: Int?
        var user: User
    }

    /// Signs in with `POST /api/auth/login`.
    /// - Throws: ``AuthError/invalidCredentials(user:)`` for a 400 or 401; ``NetworkError`` when the request fails, for
    ///   another non-2xx status, or for a body without the tokens.
    public func login(user: String, password: String, server: URL, transport: any HTTPTransport) async throws -> Credential {
        let body = try JSONCoding.encode(["username": user, "password": password])
        let response = try await post(server, "/api/auth/login", body: body, transport: transport)
        if response.status == 401 || response.status == 400 { throw AuthError.invalidCredentials(user: user) }
        return try credential(from: response, server: server, path: "/api/auth/login")
    }

    /// Exchanges the refresh token for a new session with `POST /api/auth/refresh`.
    /// - Throws: ``AuthError/sessionExpired(profile:service:)`` when there is no refresh token or the server refuses it
    ///   (a 4xx other than 429); ``NetworkError`` when the request fails or the answer is not a session.
    public func refresh(_ credential: Credential, profile: ProfileName, server: URL, transport: any HTTPTransport) async throws -> Credential {
        guard let refreshToken = credential.refreshToken else { throw AuthError.sessionExpired(profile: profile.rawValue) }
        let body = try JSONCoding.encode(["refreshToken": refreshToken])
        let response = try await post(server, "/api/auth/refresh", body: body, transport: transport)
        if (400..<500).contains(response.status), response.status != 429 {
            throw AuthError.sessionExpired(profile: profile.rawValue)
        }
        return try self.credential(from: response, server: server, path: "/api/auth/refresh")
    }

    /// Revokes the refresh token with `POST /api/auth/logout`; the answer's status is ignored.
    /// - Throws: ``NetworkError`` when the request cannot be sent.
    public func logout(_ credential: Credential, server: URL, transport: any HTTPTransport) async throws {
        guard let refreshToken = credential.refreshToken else { return }
        _ = try await post(server, "/api/auth/logout", body: try JSONCoding.encode(["refreshToken": refreshToken]), transport: transport)
    }

    private func post(_ server: URL, _ path: String, body: Data, transport: any HTTPTransport) async throws -> HTTPResponse {
        let request = HTTPRequest(
            method: "POST", url: server.appendingPathComponent(path),
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")], body: body, responseLimit: ResponseLimit.small)
        return try await transport.send(request)
    }

    private func credential(from response: HTTPResponse, server: URL, path: String) throws -> Credential {
        guard (200..<300).contains(response.status) else {
            throw NetworkError.http(status: response.status, method: "POST", path: path, message: nil, retryAfter: nil)
        }
        guard let token = try? JSONCoding.decode(TokenResponse.self, from: response.body), !token.accessToken.isEmpty else {
            throw NetworkError.invalidResponse(path: path, detail: "expected {accessToken, refreshToken, expiresIn, user}")
        }
        let obtained = now()
        return Credential(
            accessToken: token.accessToken, refreshToken: token.refreshToken,
            expiresAt: token.expiresIn.map { obtained.addingTimeInterval(TimeInterval($0)) },
            user: token.user.username, userID: token.user.id, server: server.absoluteString, obtainedAt: obtained)
    }
}
