import Crypto
import Foundation
import GRDB
import Hummingbird

/// A Plex Media Server the plex.tv emulation lists: its name, who owns it, who it is shared
/// with, and where its routes are mounted on this port.
struct PlexServerIdentity: Sendable {
    var name: String
    var machineIdentifier: String
    var owner: String
    var sharedWith: [String]
    /// The path its routes are mounted under (`""`: the root); also at `<prefix>/relay` when it has a relay.
    var prefix: String
    /// Whether it is listed with a local connection that is refused, a working remote one and a relay.
    var hasLocalAndRelay: Bool
    /// The root server also takes the reference server's own access tokens (as before plex.tv was emulated).
    var takesBradOSTokens: Bool
}

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

    // MARK: Tokens

    /// Whether `token` opens `server`: an unrevoked account token of its owner, or a server
    /// token issued for it.
    func opens(_ token: String, server: PlexServerIdentity) throws -> Bool {
        try database.writer.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT plexToken.serverId AS serverId, plexToken.revoked AS revoked, user.username AS username
                FROM plexToken JOIN user ON user.id = plexToken.userId WHERE plexToken.token = ?
                """, arguments: [token]) else { return false }
            if row["revoked"] as Bool { return false }
            if let serverID = row["serverId"] as String? { return serverID == server.machineIdentifier }
            return (row["username"] as String) == server.owner
        }
    }

    func issueAccountToken(_ userID: String) throws -> String {
        let token = Self.token()
        try database.writer.write { try $0.execute(sql: "INSERT INTO plexToken (token, userId) VALUES (?, ?)", arguments: [token, userID]) }
        return token
    }

    /// The user's token for one server: the same on every listing until revoked.
    func serverToken(_ userID: String, server: String) throws -> String {
        try database.writer.write { db in
            if let existing = try String.fetchOne(db, sql: "SELECT token FROM plexToken WHERE userId = ? AND serverId = ? AND revoked = 0",
                                                  arguments: [userID, server]) { return existing }
            let token = Self.token()
            try db.execute(sql: "INSERT INTO plexToken (token, userId, serverId) VALUES (?, ?, ?)", arguments: [token, userID, server])
            return token
        }
    }

    /// The account of the request's `X-Plex-Token` (header or query) and the token.
    func accountUser(_ request: Request) throws -> (ServerDatabase.User, String) {
        let token = PlexRoutes.header("X-Plex-Token", in: request) ?? request.uri.queryParameters.get("X-Plex-Token")
        guard let token, !token.isEmpty else { throw PlexTVError(status: .unauthorized, code: 1001, message: "User could not be authenticated") }
        let user = try database.writer.read { db in
            try Row.fetchOne(db, sql: """
                SELECT user.* FROM plexToken JOIN user ON user.id = plexToken.userId
                WHERE plexToken.token = ? AND plexToken.serverId IS NULL AND plexToken.revoked = 0
                """, arguments: [token]).map(ServerDatabase.user)
        }
        guard let user else { throw PlexTVError(status: .unauthorized, code: 1001, message: "User could not be authenticated") }
        return (user, token)
    }

    func twoFactorCode(_ userID: String) throws -> String? {
        try database.writer.read { try String.fetchOne($0, sql: "SELECT code FROM plexTwoFactor WHERE userId = ?", arguments: [userID]) }
    }

    static func token() -> String { ServerDatabase.randomToken(bytes: 10) }

    // MARK: Pins

    struct Pin {
        var id: Int64
        var code: String
        var clientIdentifier: String
        var product: String?
        var createdAt: Double
        var expiresAt: Double
        var authToken: String?
    }

    func createPin(client: String, product: String?, strong: Bool) throws -> Pin {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        let code = String((0..<(strong ? 25 : 4)).map { _ in alphabet.randomElement(using: &generator)! })
        let now = Date().timeIntervalSince1970
        let expires = now + Double(pinLifetime)
        let id = try database.writer.write { db -> Int64 in
            try db.execute(sql: "INSERT INTO plexPin (code, clientIdentifier, product, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?)",
                           arguments: [code, client, product, now, expires])
            return db.lastInsertedRowID
        }
        return Pin(id: id, code: code, clientIdentifier: client, product: product, createdAt: now, expiresAt: expires, authToken: nil)
    }

    func pin(id: Int64) throws -> Pin? {
        try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM plexPin WHERE id = ?", arguments: [id]).map {
                Pin(id: $0["id"], code: $0["code"], clientIdentifier: $0["clientIdentifier"], product: $0["product"],
                    createdAt: $0["createdAt"], expiresAt: $0["expiresAt"], authToken: $0["authToken"])
            }
        }
    }

    /// Approves the unexpired pin with `code` for the user: it gets a new account token.
    func link(code: String, userID: String) throws -> Bool {
        let token = Self.token()
        return try database.writer.write { db in
            try db.execute(sql: "INSERT INTO plexToken (token, userId) VALUES (?, ?)", arguments: [token, userID])
            try db.execute(sql: "UPDATE plexPin SET authToken = ? WHERE code = ? AND expiresAt > ? AND authToken IS NULL",
                           arguments: [token, code.uppercased(), Date().timeIntervalSince1970])
            return db.changesCount > 0
        }
    }

    // MARK: Answers

    /// plex.tv's numeric user id, stable per account.
    static func numericID(_ id: String) -> Int {
        Int(SHA256.hash(data: Data(id.utf8)).prefix(4).reduce(0) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF)
    }

    static func uuid(_ id: String) -> String {
        String(id.replacingOccurrences(of: "-", with: "").prefix(16))
    }

    static func iso(_ seconds: Double) -> String {
        Date(timeIntervalSince1970: seconds).formatted(Date.ISO8601FormatStyle())
    }

    func userAnswer(_ user: ServerDatabase.User, token: String, status: HTTPResponse.Status, request: Request) throws -> Response {
        let attributes: [(String, Any)] = [
            ("id", Self.numericID(user.id)), ("uuid", Self.uuid(user.id)), ("username", user.username), ("title", user.displayName),
            ("email", user.email), ("friendlyName", user.displayName), ("locale", ""), ("confirmed", true), ("joinedAt", 1_600_000_000),
            ("emailOnlyAuth", false), ("hasPassword", true), ("protected", false), ("thumb", "https://plex.tv/users/\(Self.uuid(user.id))/avatar"),
            ("authToken", token), ("mailingListStatus", "inactive"), ("mailingListActive", false), ("scrobbleTypes", ""),
            ("country", "US"), ("restricted", false), ("home", false), ("guest", false), ("homeSize", 1), ("homeAdmin", false),
            ("maxHomeSize", 15), ("rememberExpiresAt", 1_900_000_000), ("twoFactorEnabled", try twoFactorCode(user.id) != nil),
        ]
        let subscription: [(String, Any)] = [("active", false), ("subscribedAt", ""), ("status", "Inactive"), ("paymentService", ""), ("plan", "")]
        let profile: [(String, Any)] = [("autoSelectAudio", true), ("defaultAudioLanguage", "en"), ("defaultSubtitleLanguage", "en"),
                                        ("autoSelectSubtitle", 0), ("defaultSubtitleAccessibility", 0), ("defaultSubtitleForced", 0)]
        if Self.wantsJSON(request) {
            var object = Self.jsonObject(attributes)
            object["subscription"] = Self.jsonObject(subscription).merging(["features": [] as [String]]) { $1 }
            object["profile"] = Self.jsonObject(profile)
            object["entitlements"] = [] as [String]
            object["roles"] = [] as [String]
            object["services"] = [] as [String]
            return try Self.json(object, status: status)
        }
        let children = [XMLNode(tag: "subscription", attributes: subscription, children: [XMLNode(tag: "features")]),
                        XMLNode(tag: "profile", attributes: profile), XMLNode(tag: "entitlements"), XMLNode(tag: "roles"), XMLNode(tag: "services")]
        return Self.xml(XMLNode(tag: "user", attributes: attributes, children: children), status: status)
    }

    func pinAnswer(_ pin: Pin, status: HTTPResponse.Status, request: Request) throws -> Response {
        let attributes: [(String, Any)] = [
            ("id", pin.id), ("code", pin.code), ("product", pin.product ?? ""), ("trusted", false), ("qr", "https://plex.tv/api/v2/pins/qr/\(pin.code)"),
            ("clientIdentifier", pin.clientIdentifier), ("expiresIn", max(0, Int(pin.expiresAt - Date().timeIntervalSince1970))),
            ("createdAt", Self.iso(pin.createdAt)), ("expiresAt", Self.iso(pin.expiresAt)),
        ]
        if Self.wantsJSON(request) {
            var object = Self.jsonObject(attributes)
            object["authToken"] = pin.authToken ?? NSNull()
            object["newRegistration"] = NSNull()
            object["location"] = ["code": "US", "country": "United States", "city": "Loopback", "subdivisions": "", "coordinates": "0, 0"]
            return try Self.json(object, status: status)
        }
        return Self.xml(XMLNode(tag: "pin", attributes: attributes + [("authToken", pin.authToken ?? "")]), status: status)
    }

    /// The servers the user owns or has been shared, and one player (not a server).
    func resourcesAnswer(for user: ServerDatabase.User, relay: Bool, host: String, request: Request) throws -> Response {
        var resources: [(attributes: [(String, Any)], connections: [[(String, Any)]])] = []
        let (address, port) = Self.split(host)
        for server in servers where server.owner == user.username || server.sharedWith.contains(user.username) {
            let owned = server.owner == user.username
            var connections: [[(String, Any)]] = []
            func connection(_ uri: String, address: String, local: Bool, relay: Bool) -> [(String, Any)] {
                [("protocol", "http"), ("address", address), ("port", port), ("uri", uri), ("local", local), ("relay", relay), ("IPv6", false)]
            }
            if server.hasLocalAndRelay {
                // Loopback, but an address nothing listens on: the connection is refused.
                connections.append(connection("http://127.0.0.2:\(port)\(server.prefix)", address: "127.0.0.2", local: true, relay: false))
            }
            connections.append(connection("http://\(address):\(port)\(server.prefix)", address: address, local: false, relay: false))
            if server.hasLocalAndRelay, relay {
                connections.append(connection("http://\(address):\(port)\(server.prefix)/relay", address: address, local: false, relay: true))
            }
            let attributes: [(String, Any)] = [
                ("name", server.name), ("product", "Plex Media Server"), ("productVersion", PlexRoutes.version), ("platform", "Linux"),
                ("platformVersion", "6.1"), ("device", "PC"), ("clientIdentifier", server.machineIdentifier),
                ("createdAt", "2023-11-14T22:13:20Z"), ("lastSeenAt", "2026-11-01T00:00:00Z"), ("provides", "server"),
                ("ownerId", owned ? "" : "\(Self.numericID(try ownerID(server.owner)))"), ("sourceTitle", owned ? "" : server.owner),
                ("publicAddress", address), ("accessToken", try serverToken(user.id, server: server.machineIdentifier)),
                ("owned", owned), ("home", false), ("synced", false), ("relay", server.hasLocalAndRelay), ("presence", true),
                ("httpsRequired", false), ("publicAddressMatches", true), ("dnsRebindingProtection", false), ("natLoopbackSupported", false),
            ]
            resources.append((attributes, connections))
        }
        resources.append(([
            ("name", "\(user.displayName)'s phone"), ("product", "Plexamp"), ("productVersion", "4.11.0"), ("platform", "Android"),
            ("platformVersion", "14"), ("device", "Pixel"), ("clientIdentifier", "player-\(Self.uuid(user.id))"),
            ("createdAt", "2024-01-01T00:00:00Z"), ("lastSeenAt", "2026-11-01T00:00:00Z"), ("provides", "client,player"),
            ("ownerId", ""), ("sourceTitle", ""), ("publicAddress", address), ("accessToken", ""), ("owned", true), ("home", false),
            ("synced", false), ("relay", false), ("presence", false), ("httpsRequired", false), ("publicAddressMatches", true),
            ("dnsRebindingProtection", false), ("natLoopbackSupported", false),
        ], []))
        if Self.wantsJSON(request) {
            let array: [[String: Any]] = resources.map { resource in
                var object = Self.jsonObject(resource.attributes)
                for key in ["ownerId", "sourceTitle"] where (object[key] as? String)?.isEmpty == true { object[key] = NSNull() }
                if let owner = object["ownerId"] as? String { object["ownerId"] = Int(owner) }
                object["connections"] = resource.connections.map(Self.jsonObject)
                return object
            }
            return try Self.json(array, status: .ok)
        }
        let nodes = resources.map { resource in
            XMLNode(tag: "resource", attributes: resource.attributes,
                    children: [XMLNode(tag: "connections", children: resource.connections.map { XMLNode(tag: "connection", attributes: $0) })])
        }
        return Self.xml(XMLNode(tag: "resources", attributes: [("size", resources.count)], children: nodes), status: .ok)
    }

    func ownerID(_ username: String) throws -> String {
        try database.writer.read { try String.fetchOne($0, sql: "SELECT id FROM user WHERE username = ?", arguments: [username]) } ?? username
    }

    // MARK: Helpers

    /// An XML element as plex.tv writes it.
    struct XMLNode {
        var tag: String
        var attributes: [(String, Any)] = []
        var children: [XMLNode] = []

        func render(indent: String = "") -> String {
            let open = "\(indent)<\(tag)\(MediaContainer.xmlAttributes(attributes))"
            if children.isEmpty { return open + "/>\n" }
            return open + ">\n" + children.map { $0.render(indent: indent + "  ") }.joined() + "\(indent)</\(tag)>\n"
        }
    }

    static func wantsJSON(_ request: Request) -> Bool { MediaContainer.wantsJSON(request) }

    static func jsonObject(_ attributes: [(String, Any)]) -> [String: Any] {
        Dictionary(attributes.map { ($0.0, $0.1) }, uniquingKeysWith: { _, last in last })
    }

    static func json(_ object: Any, status: HTTPResponse.Status) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func xml(_ node: XMLNode, status: HTTPResponse.Status) -> Response {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + node.render()
        return Response(status: status, headers: [.contentType: "application/xml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The request's `Host` (what the client used to reach this port).
    static func host(_ request: Request) -> String {
        request.head.authority ?? "127.0.0.1"
    }

    static func split(_ host: String) -> (address: String, port: Int) {
        guard let colon = host.lastIndex(of: ":"), let port = Int(host[host.index(after: colon)...]) else { return (host, 80) }
        return (String(host[..<colon]), port)
    }

    /// A form body (`application/x-www-form-urlencoded`, at most 64 KiB) merged over the query.
    static func form(_ request: Request) async throws -> [String: String] {
        var fields: [String: String] = [:]
        for item in request.uri.queryParameters { fields[String(item.key)] = String(item.value) }
        var body = try await request.body.collect(upTo: 64 << 10)
        let text = body.readString(length: body.readableBytes) ?? ""
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String { part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part) }
            guard let name = parts.first.map(decode), !name.isEmpty else { continue }
            fields[name] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    static func basicCredentials(_ request: Request) -> (user: String, password: String)? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("basic "),
              let data = Data(base64Encoded: String(header.dropFirst(6))), let text = String(data: data, encoding: .utf8),
              let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}

/// A plex.tv error: `{"errors":[{"code":…,"message":…,"status":…}]}` (or `<errors>` in XML).
struct PlexTVError: HTTPResponseError {
    var status: HTTPResponse.Status
    var code: Int
    var message: String

    func response(from request: Request, context: some RequestContext) throws -> Response {
        if PlexTVRoutes.wantsJSON(request) {
            return try PlexTVRoutes.json(["errors": [["code": code, "message": message, "status": Int(status.code)]]], status: status)
        }
        return PlexTVRoutes.xml(PlexTVRoutes.XMLNode(tag: "errors", children: [
            .init(tag: "error", attributes: [("code", code), ("message", message), ("status", Int(status.code))]),
        ]), status: status)
    }
}
