import GRDB
import Hummingbird

// Tokens: issuing them, and what a request's token opens.
extension PlexTVRoutes {
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
}
