import Foundation
import GRDB
import Hummingbird

/// The plex.tv routes Plex clients sign in and find their servers with, as plex.tv answers
/// (JSON with `Accept: application/json`, XML otherwise):
///
/// - `POST /api/v2/users/signin` (form `login`, `password`, `verificationCode`; or HTTP Basic)
/// - `GET /api/v2/user` (`X-Plex-Token`), `DELETE /api/v2/users/signout` (revokes that token)
/// - `POST /api/v2/pins` (`strong=true`; needs `X-Plex-Client-Identifier`), `GET /api/v2/pins/{id}`
/// - `PUT /api/v2/pins/link` (form `code`; a signed-in account approves a pin)
/// - `GET /api/v2/resources` (`includeHttps`, `includeRelay`): the servers of the account
///
/// Plex tokens never expire; `/_admin/plex/revoke` revokes a user's (with `--admin`), and
/// `/_admin/plex/two-factor` makes a user's sign-in need a verification code.
struct PlexTVRoutes {
    let database: ServerDatabase
    let servers: [PlexServerIdentity]
    /// How long a pin lives, seconds.
    let pinLifetime: Int

    static func migrate(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7-plex-tv") { db in
            try db.create(table: "plexToken") { t in
                t.primaryKey("token", .text)
                t.column("userId", .text).notNull().references("user", onDelete: .cascade)
                // NULL: an account token; else the machine identifier of the one server it opens.
                t.column("serverId", .text)
                t.column("revoked", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "plexPin") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("code", .text).notNull().unique()
                t.column("clientIdentifier", .text).notNull()
                t.column("product", .text)
                t.column("createdAt", .double).notNull()
                t.column("expiresAt", .double).notNull()
                t.column("authToken", .text)
            }
            try db.create(table: "plexTwoFactor") { t in
                t.primaryKey("userId", .text).references("user", onDelete: .cascade)
                t.column("code", .text).notNull()
            }
        }
    }

    func register<Context: RequestContext>(on router: Router<Context>, admin: Bool) {
        router.post("/api/v2/users/signin") { request, _ in
            let form = try await Self.form(request)
            var login = form["login"] ?? form["user[login]"]
            var password = form["password"] ?? form["user[password]"]
            if let basic = Self.basicCredentials(request) { (login, password) = (login ?? basic.user, password ?? basic.password) }
            guard let login, let password, let user = try database.verify(login: login, password: password) else {
                throw PlexTVError(status: .unauthorized, code: 1001, message: "User could not be authenticated")
            }
            if let required = try twoFactorCode(user.id) {
                guard let given = form["verificationCode"], !given.isEmpty else {
                    throw PlexTVError(status: .unauthorized, code: 1029, message: "Please enter the verification code")
                }
                guard given == required else { throw PlexTVError(status: .unauthorized, code: 1030, message: "Invalid verification code") }
            }
            return try userAnswer(user, token: try issueAccountToken(user.id), status: .created, request: request)
        }
        router.get("/api/v2/user") { request, _ in
            let (user, token) = try accountUser(request)
            return try userAnswer(user, token: token, status: .ok, request: request)
        }
        // Signing out invalidates the token it is sent with (that device's), nothing else.
        router.delete("/api/v2/users/signout") { request, _ in
            let (_, token) = try accountUser(request)
            try database.writer.write { db in try db.execute(sql: "UPDATE plexToken SET revoked = 1 WHERE token = ?", arguments: [token]) }
            return Response(status: .noContent)
        }
        router.post("/api/v2/pins") { request, _ in
            let form = try await Self.form(request)
            guard let client = PlexRoutes.header("X-Plex-Client-Identifier", in: request), !client.isEmpty else {
                throw PlexTVError(status: .badRequest, code: 1000, message: "X-Plex-Client-Identifier is missing")
            }
            let strong = (form["strong"] ?? request.uri.queryParameters.get("strong"))?.lowercased() == "true"
            let pin = try createPin(client: client, product: PlexRoutes.header("X-Plex-Product", in: request), strong: strong)
            return try pinAnswer(pin, status: .created, request: request)
        }
        router.get("/api/v2/pins/{id}") { request, context in
            guard let id = context.parameters.get("id").flatMap(Int64.init), let pin = try pin(id: id),
                  pin.expiresAt > Date().timeIntervalSince1970 else {
                throw PlexTVError(status: .notFound, code: 1020, message: "Code not found or expired")
            }
            if let client = PlexRoutes.header("X-Plex-Client-Identifier", in: request), client != pin.clientIdentifier {
                throw PlexTVError(status: .notFound, code: 1020, message: "Code not found or expired")
            }
            return try pinAnswer(pin, status: .ok, request: request)
        }
        router.put("/api/v2/pins/link") { request, _ in
            let (user, _) = try accountUser(request)
            let form = try await Self.form(request)
            guard let code = form["code"] ?? request.uri.queryParameters.get("code"), try link(code: code, userID: user.id) else {
                throw PlexTVError(status: .notFound, code: 1020, message: "Code not found or expired")
            }
            return Response(status: .noContent)
        }
        router.get("/api/v2/resources") { request, _ in
            let (user, _) = try accountUser(request)
            let query = request.uri.queryParameters
            return try resourcesAnswer(for: user, relay: query.get("includeRelay") == "1", host: Self.host(request), request: request)
        }
        guard admin else { return }
        router.post("/_admin/plex/revoke") { request, _ in
            guard let name = request.uri.queryParameters.get("user") else { throw HTTPError(.badRequest, message: "?user= is required") }
            try database.writer.write { db in
                try db.execute(sql: "UPDATE plexToken SET revoked = 1 WHERE userId IN (SELECT id FROM user WHERE username = ?)", arguments: [name])
            }
            return Response(status: .noContent)
        }
        router.post("/_admin/plex/two-factor") { request, _ in
            let query = request.uri.queryParameters
            guard let name = query.get("user"), let code = query.get("code") else { throw HTTPError(.badRequest, message: "?user= and ?code= are required") }
            try database.writer.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO plexTwoFactor (userId, code) SELECT id, ? FROM user WHERE username = ?", arguments: [code, name])
            }
            return Response(status: .noContent)
        }
    }
}
