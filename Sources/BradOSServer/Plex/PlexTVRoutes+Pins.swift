import Foundation
import GRDB

// Pins: a device asks for one, a signed-in account links it, the device collects its token.
extension PlexTVRoutes {
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
}
