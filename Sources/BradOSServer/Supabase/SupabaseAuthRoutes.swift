import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Supabase Auth (GoTrue) as Supabase's client libraries call it:
/// `POST /auth/v1/token?grant_type=password|refresh_token`, `GET /auth/v1/user`,
/// `POST /auth/v1/logout?scope=global|local|others`. Every request carries the project's
/// `apikey`. Access tokens are HS256 JWTs (`sub`, `email`, `role`, `aud`, `exp`,
/// `session_id`); refresh tokens rotate and a reused one is refused.
struct SupabaseAuthRoutes {
    let database: ServerDatabase
    let tokenTTL: Int
    let anonKey: String
    /// Signs the access tokens (the reference server checks them by lookup as well).
    static var jwtSecret: SymmetricKey { SymmetricKey(data: Data("brados-reference-server-jwt-secret".utf8)) }

    struct PasswordGrant: Decodable { var email: String?; var phone: String?; var password: String }
    struct RefreshGrant: Decodable { var refresh_token: String }

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.post("/auth/v1/token") { request, _ in
            if let rejected = checkAPIKey(request) { return rejected }
            switch request.uri.queryParameters["grant_type"].map(String.init) {
            case "password":
                guard let body = try? await JSON.decode(PasswordGrant.self, from: request), let login = body.email ?? body.phone else {
                    return Self.authError(.badRequest, code: "validation_failed", message: "Send an email (or phone) and a password.")
                }
                guard let user = try database.verify(login: login.lowercased(), password: body.password) else {
                    return Self.authError(.badRequest, code: "invalid_credentials", message: "Invalid login credentials", legacy: "invalid_grant")
                }
                return try session(for: user, session: UUID().uuidString.lowercased())
            case "refresh_token":
                guard let body = try? await JSON.decode(RefreshGrant.self, from: request), !body.refresh_token.isEmpty else {
                    return Self.authError(.badRequest, code: "validation_failed", message: "Send a refresh_token.")
                }
                switch try database.rotateRefreshToken(body.refresh_token) {
                case let .rotated(user, session): return try self.session(for: user, session: session)
                case .reused:
                    return Self.authError(.badRequest, code: "refresh_token_already_used", message: "Invalid Refresh Token: Already Used", legacy: "invalid_grant")
                case .unknown:
                    return Self.authError(.badRequest, code: "refresh_token_not_found", message: "Invalid Refresh Token: Refresh Token Not Found", legacy: "invalid_grant")
                }
            default:
                return Self.authError(.badRequest, code: "unsupported_grant_type", message: "Unsupported grant type: use password or refresh_token.", legacy: "unsupported_grant_type")
            }
        }
        router.get("/auth/v1/user") { request, _ in
            if let rejected = checkAPIKey(request) { return rejected }
            guard let user = try bearerUser(request) else {
                return Self.authError(.unauthorized, code: "bad_jwt", message: "invalid JWT: unable to parse or verify signature, token is expired")
            }
            return try Self.json(userObject(user))
        }
        router.post("/auth/v1/logout") { request, _ in
            if let rejected = checkAPIKey(request) { return rejected }
            guard let token = Self.bearer(request), let user = try database.user(forAccessToken: token) else {
                return Self.authError(.unauthorized, code: "bad_jwt", message: "invalid JWT: unable to parse or verify signature, token is expired")
            }
            let scope = request.uri.queryParameters["scope"].map(String.init) ?? "global"
            try database.signOut(userID: user.id, accessToken: token, scope: scope)
            return Response(status: .noContent)
        }
    }

    // MARK: - Helpers shared with PostgREST

    /// `nil` when the request carries the project's API key (header or `apikey` query
    /// parameter); otherwise the 401 the Supabase gateway answers.
    func checkAPIKey(_ request: Request) -> Response? {
        let given = request.headers[.apikey] ?? request.uri.queryParameters["apikey"].map(String.init)
        guard let given else {
            return try? Self.json(["message": "No API key found in request", "hint": "No `apikey` request header or url param was found."], status: .unauthorized)
        }
        guard given == anonKey else {
            return try? Self.json(["message": "Invalid API key", "hint": "Double check your Supabase `anon` or `service_role` API key."], status: .unauthorized)
        }
        return nil
    }

    /// The signed-in user of the request's bearer JWT; `nil` without one or when it is the
    /// anon key (the `anon` role).
    /// - Throws: ``BearerError`` for a token that is neither valid nor the anon key.
    func bearerUser(_ request: Request) throws -> ServerDatabase.User? {
        guard let token = Self.bearer(request), token != anonKey else { return nil }
        guard let user = try database.user(forAccessToken: token) else { throw BearerError.invalid }
        return user
    }

    enum BearerError: Error { case invalid }

    static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    func session(for user: ServerDatabase.User, session: String) throws -> Response {
        let issued = Date()
        let expiresAt = Int(issued.timeIntervalSince1970) + tokenTTL
        let access = Self.jwt([
            "aud": "authenticated", "role": "authenticated", "sub": user.id, "email": user.email,
            "iat": Int(issued.timeIntervalSince1970), "exp": expiresAt, "session_id": session,
            "iss": "brados-server/auth/v1", "is_anonymous": false, "jti": UUID().uuidString.lowercased(),
        ])
        let refresh = String(ServerDatabase.randomToken(bytes: 12))
        try database.storeTokens(access: access, refresh: refresh, userID: user.id, accessTTL: tokenTTL, session: session, now: issued)
        return try Self.json([
            "access_token": access, "token_type": "bearer", "expires_in": tokenTTL, "expires_at": expiresAt,
            "refresh_token": refresh, "user": userObject(user),
        ])
    }

    func userObject(_ user: ServerDatabase.User) -> [String: Any] {
        let created = "2026-01-05T09:30:00.000000Z"
        return [
            "id": user.id, "aud": "authenticated", "role": "authenticated", "email": user.email, "phone": "",
            "email_confirmed_at": created, "confirmed_at": created, "last_sign_in_at": Self.timestamp(Date()),
            "app_metadata": ["provider": "email", "providers": ["email"]],
            "user_metadata": ["display_name": user.displayName, "username": user.username],
            "identities": [] as [Any], "created_at": created, "updated_at": created, "is_anonymous": false,
        ]
    }

    /// A GoTrue error body: the current shape (`code`, `error_code`, `msg`) plus the older
    /// one (`error`, `error_description`) that some client versions read.
    static func authError(_ status: HTTPResponse.Status, code: String, message: String, legacy: String? = nil) -> Response {
        var body: [String: Any] = ["code": Int(status.code), "error_code": code, "msg": message]
        if let legacy {
            body["error"] = legacy
            body["error_description"] = message
        }
        return (try? json(body, status: status)) ?? Response(status: status)
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `2026-11-21T10:15:30.123456+00:00`, as PostgreSQL prints a `timestamptz`.
    static func timestamp(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = Int(micros.quotientAndRemainder(dividingBy: 1_000_000).quotient)
        let fraction = Int(micros - Int64(seconds) * 1_000_000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06d+00:00", parts.year!, parts.month!, parts.day!,
                      parts.hour!, parts.minute!, parts.second!, fraction)
    }

    static func jwt(_ claims: [String: Any]) -> String {
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let header = base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = base64URL((try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data())
        let signature = HMAC<SHA256>.authenticationCode(for: Data("\(header).\(payload)".utf8), using: jwtSecret)
        return "\(header).\(payload).\(base64URL(Data(signature)))"
    }
}
