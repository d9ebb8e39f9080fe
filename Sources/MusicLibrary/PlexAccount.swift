import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSTerminal
import Foundation

/// Signing in to Plex the way Plex's own apps do: through plex.tv (`plex.account-server`),
/// never on the media server. A code approved in the browser (`POST /api/v2/pins?strong=true`,
/// then `GET /api/v2/pins/{id}` until it carries an `authToken`), an existing token
/// (`GET /api/v2/user`), or a user name and password (`POST /api/v2/users/signin`, with
/// `verificationCode` for two-factor accounts).
///
/// Plex tokens do not expire and come with no refresh token: the session is the account token,
/// and a 401 later means "sign in again". The account token only ever goes to the account
/// server; media servers get their own tokens (see ``PlexServers``).
public struct PlexAccount: ServiceSignIn {
    /// `plex.account-server`: where plex.tv is (default `https://plex.tv`).
    public static let accountServerKey = "plex.account-server"
    public static let defaultAccountServer = "https://plex.tv"

    public let server: URL
    public let clientIdentifier: String
    /// A media server named directly (`server.plex`): a token is checked there and used with
    /// it alone, without plex.tv (a server on the LAN).
    public let mediaServer: URL?
    let now: @Sendable () -> Date

    public init(server: URL, clientIdentifier: String, mediaServer: URL? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.server = server
        self.clientIdentifier = clientIdentifier
        self.mediaServer = mediaServer
        self.now = now
    }

    /// The account server of the environment's settings, identified as the profile's Plex client.
    /// - Throws: ``ConfigError``, ``StorageError`` (the client identifier is created on first use).
    public static func live(_ env: AppEnvironment) throws -> PlexAccount {
        PlexAccount(server: try accountServer(env.settings), clientIdentifier: try LibraryRepository.clientIdentifier(env.defaults),
                    mediaServer: try env.settings.ownServerURL(for: .plex), now: env.now)
    }

    /// The `plex.account-server` setting.
    /// - Throws: ``ConfigError/invalidValue(key:value:expected:)``.
    public static func accountServer(_ settings: Settings) throws -> URL {
        let value = settings.resolve(accountServerKey).value ?? defaultAccountServer
        guard ConfigKey.urlValidator(value) == nil, let url = URL(string: value) else {
            throw ConfigError.invalidValue(key: accountServerKey, value: value, expected: "an http:// or https:// URL")
        }
        return url
    }

    public func accountServer() throws -> URL { server }

    /// `server.plex` when set (its own token, used there alone), else plex.tv.
    public func tokenServer() throws -> URL { mediaServer ?? server }

    // MARK: Sign-in

    struct User: Decodable {
        var id: Int
        var uuid: String?
        var username: String
        var email: String?
        var authToken: String
    }

    struct Pin: Decodable {
        var id: Int
        var code: String
        var expiresIn: Int?
        var authToken: String?
    }

    struct Errors: Decodable {
        struct Item: Decodable { var code: Int?; var message: String? }
        var errors: [Item]
    }

    public func signIn(user: String, password: String, code: String?, transport: any HTTPTransport) async throws -> Credential {
        var form = [("login", user), ("password", password), ("rememberMe", "true")]
        if let code { form.append(("verificationCode", code)) }
        let response = try await send("POST", "/api/v2/users/signin", form: form, transport: transport)
        if response.status == 401 || response.status == 400 || response.status == 422 {
            switch Self.errorCode(response) {
            case 1029: throw AuthError.verificationCodeNeeded(user: user, service: Service.plex.rawValue, wrong: false)
            case 1030, 1031: throw AuthError.verificationCodeNeeded(user: user, service: Service.plex.rawValue, wrong: true)
            default: throw AuthError.invalidCredentials(user: user)
            }
        }
        return try credential(try decode(User.self, response, path: "/api/v2/users/signin"))
    }

    /// With `server.plex` set, the token is the media server's: checked with `GET /` there (no
    /// plex.tv). Otherwise it is a plex.tv account token, checked with `GET /api/v2/user`.
    public func signIn(token: String, transport: any HTTPTransport) async throws -> Credential {
        if let mediaServer { return try await signIn(token: token, mediaServer: mediaServer, transport: transport) }
        let response = try await send("GET", "/api/v2/user", token: token, transport: transport)
        if response.status == 401 || response.status == 403 { throw AuthError.tokenRejected(service: Service.plex.rawValue) }
        return try credential(try decode(User.self, response, path: "/api/v2/user"))
    }

    /// A token checked against a media server itself; the session belongs to that server.
    func signIn(token: String, mediaServer: URL, transport: any HTTPTransport) async throws -> Credential {
        struct Root: Decodable {
            struct Container: Decodable { var friendlyName: String?; var machineIdentifier: String?; var myPlexUsername: String? }
            var MediaContainer: Container
        }
        let response = try await send("GET", "/", token: token, to: mediaServer, transport: transport)
        if response.status == 401 || response.status == 403 { throw AuthError.tokenRejected(service: Service.plex.rawValue) }
        let root = try decode(Root.self, response, path: "/")
        guard let machine = root.MediaContainer.machineIdentifier, !machine.isEmpty else {
            throw NetworkError.invalidResponse(path: "/", detail: "\(mediaServer.absoluteString) did not answer as a Plex Media Server (no machineIdentifier)")
        }
        let user = root.MediaContainer.myPlexUsername.flatMap { $0.isEmpty ? nil : $0 } ?? root.MediaContainer.friendlyName ?? "token"
        return Credential(accessToken: token, refreshToken: nil, expiresAt: nil, user: String(user.prefix(100)), userID: Credential.directServerPrefix + machine,
                          server: mediaServer.absoluteString, obtainedAt: now())
    }

    public func startLink(transport: any HTTPTransport) async throws -> SignInLink {
        let response = try await send("POST", "/api/v2/pins", query: [("strong", "true")], transport: transport)
        let pin = try decode(Pin.self, response, path: "/api/v2/pins")
        return SignInLink(id: "\(pin.id)", code: pin.code, url: Self.approvalURL(clientIdentifier: clientIdentifier, code: pin.code),
                          expiresAt: now().addingTimeInterval(TimeInterval(pin.expiresIn ?? 1800)))
    }

    public func checkLink(id: String, transport: any HTTPTransport) async throws -> SignInLink.State {
        guard !id.isEmpty, id.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), id.utf8.count <= 20 else {
            return .expired
        }
        let response = try await send("GET", "/api/v2/pins/\(id)", transport: transport)
        if response.status == 404 || response.status == 410 { return .expired }
        let pin = try decode(Pin.self, response, path: "/api/v2/pins/{id}")
        if let token = pin.authToken, !token.isEmpty { return .approved(try await signIn(token: token, transport: transport)) }
        guard let left = pin.expiresIn, left > 0 else { return .expired }
        return .waiting(expiresAt: now().addingTimeInterval(TimeInterval(left)))
    }

    /// `DELETE /api/v2/users/signout` with the account token, at the account server that issued
    /// it: plex.tv invalidates that token. A media server's own token (signed in directly) has no
    /// sign-out; it is only erased locally.
    public func signOut(_ credential: Credential, transport: any HTTPTransport) async throws -> Bool {
        guard credential.directServer == nil, credential.isIssued(by: server, embedded: false) else { return false }
        let response = try await send("DELETE", "/api/v2/users/signout", token: credential.accessToken, transport: transport)
        // Already revoked counts as signed out.
        return (200..<300).contains(response.status) || response.status == 401
    }

    /// The page where the user approves a code (Plex's own OAuth page).
    public static func approvalURL(clientIdentifier: String, code: String) -> String {
        var components = URLComponents()
        components.queryItems = [.init(name: "clientID", value: clientIdentifier), .init(name: "code", value: code),
                                 .init(name: "context[device][product]", value: "brados")]
        return "https://app.plex.tv/auth#?" + (components.percentEncodedQuery ?? "")
    }

    // MARK: Resources

    /// A media server (or other device) of the account, as `GET /api/v2/resources` lists it.
    public struct Resource: Codable, Sendable, Equatable {
        public struct Connection: Codable, Sendable, Equatable {
            public var `protocol`: String?
            public var address: String?
            public var port: Int?
            public var uri: String
            public var local: Bool?
            public var relay: Bool?
        }
        public var name: String
        public var clientIdentifier: String
        public var provides: String?
        public var owned: Bool?
        public var sourceTitle: String?
        public var productVersion: String?
        public var accessToken: String?
        public var connections: [Connection]?

        public var isServer: Bool { provides?.split(separator: ",").contains("server") ?? false }
    }

    /// The account's media servers (`provides` contains `server`), relays and https included.
    /// - Throws: ``AuthError/sessionExpired(profile:service:)`` for a revoked token, ``NetworkError``.
    public func servers(token: String, profile: String, transport: any HTTPTransport) async throws -> [Resource] {
        let response = try await send("GET", "/api/v2/resources", query: [("includeHttps", "1"), ("includeRelay", "1")], token: token, transport: transport)
        if response.status == 401 || response.status == 403 { throw AuthError.sessionExpired(profile: profile, service: Service.plex.rawValue) }
        return try decode([Resource].self, response, path: "/api/v2/resources").filter(\.isServer)
    }

    // MARK: Transport

    /// A request to the account server (or to `base`: a media server checked directly).
    func send(_ method: String, _ path: String, query: [(String, String)] = [], form: [(String, String)]? = nil, token: String? = nil,
              to base: URL? = nil, transport: any HTTPTransport) async throws -> HTTPResponse {
        var components = URLComponents(url: (base ?? server).appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        var headers = PlexRESTClient.identificationHeaders(clientIdentifier: clientIdentifier)
            + [("Accept", "application/json"), ("User-Agent", "brados/\(BradOSVersion.current)")]
        if let token { headers.append(("X-Plex-Token", token)) }
        var body: Data?
        if let form {
            var encoded = URLComponents()
            encoded.queryItems = form.map { URLQueryItem(name: $0.0, value: $0.1) }
            // `+` is a space in a form body: encode it, as URLComponents leaves it alone.
            body = Data((encoded.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B").utf8)
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        }
        let response = try await transport.send(HTTPRequest(method: method, url: components.url!, headers: headers, body: body,
                                                                   responseLimit: ResponseLimit.small))
        if response.status >= 500 || response.status == 429 {
            throw NetworkError.http(status: response.status, method: method, path: path, message: Self.errorMessage(response),
                                    retryAfter: APIClient.retryAfter(response))
        }
        return response
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse, path: String) throws -> T {
        guard (200..<300).contains(response.status) else {
            throw NetworkError.http(status: response.status, method: "GET", path: path, message: Self.errorMessage(response), retryAfter: nil)
        }
        do { return try JSONCoding.decode(T.self, from: response.body) } catch { throw NetworkError.undecodable(path: path, error) }
    }

    func credential(_ user: User) throws -> Credential {
        guard !user.authToken.isEmpty else { throw NetworkError.invalidResponse(path: "/api/v2/user", detail: "no authToken") }
        return Credential(accessToken: user.authToken, refreshToken: nil, expiresAt: nil, user: user.username, userID: "\(user.id)",
                          server: server.absoluteString, obtainedAt: now())
    }

    static func errorCode(_ response: HTTPResponse) -> Int? {
        (try? JSONCoding.decode(Errors.self, from: response.body))?.errors.first?.code
    }

    static func errorMessage(_ response: HTTPResponse) -> String? {
        (try? JSONCoding.decode(Errors.self, from: response.body))?.errors.first?.message.map { String($0.prefix(200)) }
    }
}

extension Credential {
    /// How a session with a media server's own token (`server.plex`) is marked: its user id
    /// is this prefix and the server's machine identifier.
    static let directServerPrefix = "server:"

    /// The machine identifier of the media server this session was signed in to directly, if so.
    var directServer: String? {
        guard let id = userID, id.hasPrefix(Self.directServerPrefix) else { return nil }
        return String(id.dropFirst(Self.directServerPrefix.count))
    }
}
