import Crypto
import Foundation
import GRDB

/// A text value as the server stores it. GRDB binds a String as a C string and reads TEXT
/// back through one, so a NUL (U+0000) would cut the text there: a text holding one is stored
/// as its UTF-8 bytes (a BLOB), which `String.fromDatabaseValue` and a copied `Row` read whole.
/// The Realtime triggers cast it back to TEXT for `json_object`, which writes `\u0000`.
enum StoredText {
    static func value(_ text: String?) -> (any DatabaseValueConvertible)? {
        guard let text else { return nil }
        return text.utf8.contains(0) ? Data(text.utf8) : text
    }
}

/// The reference server's SQLite store. Each domain adds its tables in its own migration.
public final class ServerDatabase: Sendable {
    public let writer: any DatabaseWriter

    /// Opens (creating and migrating) the database.
    /// - Throws: GRDB errors.
    public init(directory: URL?) throws {
        if let directory {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            var config = Configuration()
            config.busyMode = .timeout(10)
            let path = directory.appendingPathComponent("server.sqlite").path
            try Self.createPrivately(path)
            writer = try DatabaseQueue(path: path, configuration: config)
        } else {
            writer = try DatabaseQueue()
        }
        try Self.migrator.migrate(writer)
    }

    /// Creates the database file owner-only (0600) before SQLite opens it, whatever the umask,
    /// and narrows one an earlier version left wider: it holds tokens and password hashes.
    /// SQLite gives its journal the database file's mode, so that is private too.
    private static func createPrivately(_ path: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-accounts") { db in
            try db.create(table: "user") { t in
                t.primaryKey("id", .text)
                t.column("username", .text).notNull().unique()
                t.column("email", .text).notNull().unique()
                t.column("displayName", .text).notNull()
                t.column("salt", .text).notNull()
                t.column("passwordHash", .text).notNull()
            }
            try db.create(table: "token") { t in
                t.primaryKey("token", .text)
                t.column("userId", .text).notNull().references("user", onDelete: .cascade)
                t.column("kind", .text).notNull() // access | refresh
                t.column("expiresAt", .double).notNull()
                t.column("used", .boolean).notNull().defaults(to: false)
            }
        }
        MealPlanRoutes.migrate(&migrator)
        VisitRoutes.migrate(&migrator)
        migrator.registerMigration("v4-sessions") { db in
            // Supabase Auth sessions: the tokens of one sign-in share a session id.
            try db.alter(table: "token") { t in t.add(column: "session", .text) }
        }
        CoachRoutes.migrate(&migrator)
        NutritionRoutes.migrate(&migrator)
        PlexTVRoutes.migrate(&migrator)
        NutritionRoutes.migrateWeights(&migrator)
        RealtimeChanges.migrate(&migrator)
        return migrator
    }

    /// A user row.
    public struct User: Sendable, Codable, Equatable {
        public var id: String
        public var username: String
        public var email: String
        public var displayName: String
    }

    /// Adds a user; returns it.
    @discardableResult
    public func addUser(id: String, username: String, email: String, displayName: String, password: String) throws -> User {
        let salt = Self.randomToken(bytes: 8)
        try writer.write { db in
            try db.execute(
                sql: "INSERT INTO user (id, username, email, displayName, salt, passwordHash) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [id, username, email, displayName, salt, Self.hash(password, salt: salt)])
        }
        return User(id: id, username: username, email: email, displayName: displayName)
    }

    /// Gives every account the same password (the embedded backend: the profile's secret).
    public func setEveryPassword(_ password: String) throws {
        try writer.write { db in
            for id in try String.fetchAll(db, sql: "SELECT id FROM user") {
                let salt = Self.randomToken(bytes: 8)
                try db.execute(sql: "UPDATE user SET salt = ?, passwordHash = ? WHERE id = ?", arguments: [salt, Self.hash(password, salt: salt), id])
            }
        }
    }

    /// The user whose user name or e-mail and password match.
    public func verify(login: String, password: String) throws -> User? {
        try writer.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM user WHERE username = ? OR email = ?", arguments: [login, login]) else { return nil }
            guard Self.hash(password, salt: row["salt"]) == row["passwordHash"] as String else { return nil }
            return Self.user(row)
        }
    }

    public func userCount() throws -> Int {
        try writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM user") ?? 0 }
    }

    /// Issues an access token and a single-use refresh token.
    public func issueTokens(for userID: String, accessTTL: Int, now: Date = Date()) throws -> (access: String, refresh: String) {
        let access = "at_" + Self.randomToken(bytes: 24)
        let refresh = "rt_" + Self.randomToken(bytes: 24)
        try writer.write { db in
            try db.execute(sql: "INSERT INTO token (token, userId, kind, expiresAt) VALUES (?, ?, 'access', ?)",
                           arguments: [access, userID, now.timeIntervalSince1970 + Double(accessTTL)])
            try db.execute(sql: "INSERT INTO token (token, userId, kind, expiresAt) VALUES (?, ?, 'refresh', ?)",
                           arguments: [refresh, userID, now.timeIntervalSince1970 + 30 * 86400])
        }
        return (access, refresh)
    }

    /// The user of a valid, unexpired access token.
    public func user(forAccessToken token: String, now: Date = Date()) throws -> User? {
        try writer.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT user.* FROM token JOIN user ON user.id = token.userId
                WHERE token.token = ? AND token.kind = 'access' AND token.expiresAt > ?
                """, arguments: [token, now.timeIntervalSince1970])
            return row.map(Self.user)
        }
    }

    /// Spends a refresh token: returns its user once; a reused, unknown or expired token gives `nil`.
    public func consumeRefreshToken(_ token: String, now: Date = Date()) throws -> User? {
        try writer.write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT user.*, token.used AS used, token.expiresAt AS tokenExpiresAt FROM token JOIN user ON user.id = token.userId
                WHERE token.token = ? AND token.kind = 'refresh'
                """, arguments: [token]) else { return nil }
            guard !(row["used"] as Bool), (row["tokenExpiresAt"] as Double) > now.timeIntervalSince1970 else { return nil }
            try db.execute(sql: "UPDATE token SET used = 1 WHERE token = ?", arguments: [token])
            return Self.user(row)
        }
    }

    /// Stores an access token and a refresh token issued together for one session.
    public func storeTokens(access: String, refresh: String, userID: String, accessTTL: Int, session: String, now: Date = Date()) throws {
        try writer.write { db in
            try db.execute(sql: "INSERT INTO token (token, userId, kind, expiresAt, session) VALUES (?, ?, 'access', ?, ?)",
                           arguments: [access, userID, now.timeIntervalSince1970 + Double(accessTTL), session])
            try db.execute(sql: "INSERT INTO token (token, userId, kind, expiresAt, session) VALUES (?, ?, 'refresh', ?, ?)",
                           arguments: [refresh, userID, now.timeIntervalSince1970 + 30 * 86400, session])
        }
    }

    /// What spending a refresh token gave.
    public enum Rotation: Sendable, Equatable {
        case rotated(User, session: String)
        case reused
        case unknown
    }

    /// Spends a refresh token for the next one of its session (rotation).
    public func rotateRefreshToken(_ token: String, now: Date = Date()) throws -> Rotation {
        try writer.write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT user.*, token.used AS used, token.expiresAt AS tokenExpiresAt, token.session AS session
                FROM token JOIN user ON user.id = token.userId WHERE token.token = ? AND token.kind = 'refresh'
                """, arguments: [token]) else { return .unknown }
            if row["used"] as Bool { return .reused }
            guard (row["tokenExpiresAt"] as Double) > now.timeIntervalSince1970 else { return .unknown }
            try db.execute(sql: "UPDATE token SET used = 1 WHERE token = ?", arguments: [token])
            return .rotated(Self.user(row), session: (row["session"] as String?) ?? UUID().uuidString.lowercased())
        }
    }

    /// Supabase sign-out: revokes the refresh tokens of this session (`local`), of every
    /// other session (`others`) or of all the user's sessions (`global`, the default).
    public func signOut(userID: String, accessToken: String, scope: String) throws {
        try writer.write { db in
            let session = try String.fetchOne(db, sql: "SELECT session FROM token WHERE token = ?", arguments: [accessToken])
            switch scope {
            case "local":
                try db.execute(sql: "UPDATE token SET used = 1 WHERE kind = 'refresh' AND userId = ? AND session = ?", arguments: [userID, session])
                try db.execute(sql: "UPDATE token SET expiresAt = 0 WHERE token = ?", arguments: [accessToken])
            case "others":
                try db.execute(sql: "UPDATE token SET used = 1 WHERE kind = 'refresh' AND userId = ? AND session IS NOT ?", arguments: [userID, session])
            default:
                try db.execute(sql: "UPDATE token SET used = 1 WHERE kind = 'refresh' AND userId = ?", arguments: [userID])
                try db.execute(sql: "UPDATE token SET expiresAt = 0 WHERE token = ?", arguments: [accessToken])
            }
        }
    }

    /// Revokes a refresh token (sign-out).
    public func revoke(refreshToken token: String) throws {
        try writer.write { try $0.execute(sql: "UPDATE token SET used = 1 WHERE token = ?", arguments: [token]) }
    }

    static func user(_ row: Row) -> User {
        User(id: row["id"], username: row["username"], email: row["email"], displayName: row["displayName"])
    }

    static func hash(_ password: String, salt: String) -> String {
        SHA256.hash(data: Data((salt + ":" + password).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func randomToken(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
