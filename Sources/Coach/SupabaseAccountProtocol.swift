import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

/// Supabase Auth (GoTrue) sign-in: `POST /auth/v1/token?grant_type=password {email, password}`
/// and `grant_type=refresh_token {refresh_token}`, answering `{access_token, token_type,
/// expires_in, expires_at, refresh_token, user}`; `POST /auth/v1/logout?scope=local`.
/// Every request carries the project's `apikey`.
///
/// Refresh tokens rotate (each is single-use); the core's ``TokenAuthenticator`` serializes
/// renewals across processes with the credential store's lock.
public struct SupabaseAccountProtocol: AccountProtocol {
    public var anonKey: String
    public var now: @Sendable () -> Date

    public init(anonKey: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.anonKey = anonKey
        self.now = now
    }

    struct Session: Decodable {
        struct User: Decodable { var id: String; var email: String? }
        var accessToken: String
        var refreshToken: String?
        var expiresIn: Int?
        var expiresAt: Double?
        var user: User
    }

    public func login(user: String, password: String, server: URL, transport: any HTTPTransport) async throws -> Credential {
        let body = try JSONCoding.encode(["email": user, "password": password])
        let response = try await send("POST", server, "/auth/v1/token", query: "grant_type=password", body: body, token: nil, transport: transport)
        try Self.checkAPIKey(response)
        if response.status == 400 || response.status == 401 || response.status == 422 { throw AuthError.invalidCredentials(user: user) }
        return try credential(from: response, server: server, path: "/auth/v1/token")
    }

    public func refresh(_ credential: Credential, profile: ProfileName, server: URL, transport: any HTTPTransport) async throws -> Credential {
        guard let refreshToken = credential.refreshToken else { throw AuthError.sessionExpired(profile: profile.rawValue) }
        let body = try JSONCoding.encode(["refresh_token": refreshToken])
        let response = try await send("POST", server, "/auth/v1/token", query: "grant_type=refresh_token", body: body, token: nil, transport: transport)
        try Self.checkAPIKey(response)
        if (400..<500).contains(response.status), response.status != 429 {
            throw AuthError.sessionExpired(profile: profile.rawValue)
        }
        return try self.credential(from: response, server: server, path: "/auth/v1/token")
    }

    public func logout(_ credential: Credential, server: URL, transport: any HTTPTransport) async throws {
        let response = try await send("POST", server, "/auth/v1/logout", query: "scope=local", body: nil, token: credential.accessToken, transport: transport)
        guard (200..<300).contains(response.status) else {
            throw NetworkError.http(status: response.status, method: "POST", path: "/auth/v1/logout", message: nil, retryAfter: nil)
        }
    }

    /// A 401 about the API key (not the user's token) means the project key is wrong.
    static func checkAPIKey(_ response: HTTPResponse) throws {
        guard response.status == 401,
              let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
              let message = object["message"] as? String, message.localizedCaseInsensitiveContains("api key")
        else { return }
        throw CoachError.apiKeyRejected(message: message)
    }

    private func send(_ method: String, _ server: URL, _ path: String, query: String, body: Data?, token: String?,
                      transport: any HTTPTransport) async throws -> HTTPResponse {
        var components = URLComponents(url: server.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = query
        var headers: [(name: String, value: String)] = [("apikey", anonKey), ("Accept", "application/json"),
                                                        ("X-Client-Info", "brados/\(BradOSVersion.current)")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await transport.send(HTTPRequest(method: method, url: components.url!, headers: headers, body: body,
                                                           responseLimit: ResponseLimit.small))
    }

    private func credential(from response: HTTPResponse, server: URL, path: String) throws -> Credential {
        guard (200..<300).contains(response.status) else {
            throw NetworkError.http(status: response.status, method: "POST", path: path, message: nil, retryAfter: nil)
        }
        guard let session = try? SupabaseJSON.decoder().decode(Session.self, from: response.body), !session.accessToken.isEmpty else {
            throw NetworkError.invalidResponse(path: path, detail: "expected {access_token, refresh_token, expires_in, user}")
        }
        let obtained = now()
        let expires = session.expiresAt.map { Date(timeIntervalSince1970: $0) }
            ?? session.expiresIn.map { obtained.addingTimeInterval(TimeInterval($0)) }
        return Credential(accessToken: session.accessToken, refreshToken: session.refreshToken, expiresAt: expires,
                          user: session.user.email ?? session.user.id, userID: session.user.id, server: server.absoluteString,
                          obtainedAt: obtained)
    }
}
