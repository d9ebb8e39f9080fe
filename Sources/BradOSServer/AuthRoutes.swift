import Foundation
import Hummingbird

/// BradOS sign-in: `/api/auth/login`, `/api/auth/refresh`, `/api/auth/logout`, `/api/auth/me`.
struct AuthRoutes {
    let database: ServerDatabase
    let tokenTTL: Int

    struct LoginBody: Decodable { var username: String; var password: String }
    struct RefreshBody: Decodable { var refreshToken: String }
    struct TokenAnswer: Encodable {
        struct User: Encodable { var id: String; var username: String; var email: String; var displayName: String }
        var accessToken: String
        var refreshToken: String
        var expiresIn: Int
        var tokenType = "bearer"
        var user: User
    }

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.post("/api/auth/login") { request, _ in
            let body = try await JSON.decode(LoginBody.self, from: request)
            guard let user = try database.verify(login: body.username, password: body.password) else {
                throw HTTPError(.unauthorized, message: "Invalid user name or password.")
            }
            return try answer(for: user)
        }
        router.post("/api/auth/refresh") { request, _ in
            let body = try await JSON.decode(RefreshBody.self, from: request)
            guard let user = try database.consumeRefreshToken(body.refreshToken) else {
                throw HTTPError(.unauthorized, message: "The refresh token is invalid, expired or already used.")
            }
            return try answer(for: user)
        }
        router.post("/api/auth/logout") { request, _ in
            let body = try await JSON.decode(RefreshBody.self, from: request)
            try database.revoke(refreshToken: body.refreshToken)
            return Response(status: .noContent)
        }
        router.get("/api/auth/me") { request, _ in
            let user = try authenticate(request)
            return try JSON.response(user)
        }
    }

    func answer(for user: ServerDatabase.User) throws -> Response {
        let tokens = try database.issueTokens(for: user.id, accessTTL: tokenTTL)
        return try JSON.response(TokenAnswer(
            accessToken: tokens.access, refreshToken: tokens.refresh, expiresIn: tokenTTL,
            user: .init(id: user.id, username: user.username, email: user.email, displayName: user.displayName)))
    }

    /// The user of the request's bearer token.
    /// - Throws: `HTTPError(.unauthorized)`.
    func authenticate(_ request: Request) throws -> ServerDatabase.User {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw HTTPError(.unauthorized, message: "Missing bearer token.")
        }
        guard let user = try database.user(forAccessToken: String(header.dropFirst(7))) else {
            throw HTTPError(.unauthorized, message: "The access token is invalid or expired.")
        }
        return user
    }
}
