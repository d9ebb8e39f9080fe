import Foundation
import GRDB
import Hummingbird

/// BradOS REST meal plans: latest, by id, generate, critique, finalize. Bearer token required;
/// a user only ever sees their own sessions.
struct MealPlanRoutes {
    let database: ServerDatabase
    let auth: AuthRoutes
    let seed: Int

    struct CritiqueBody: Decodable { var text: String }

    static func migrate(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-mealplans") { db in
            try db.create(table: "mealplanSession") { t in
                t.primaryKey("id", .text)
                t.column("userId", .text).notNull().references("user", onDelete: .cascade).indexed()
                t.column("createdAt", .double).notNull()
                t.column("body", .blob).notNull()
            }
        }
    }

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/api/mealplans/latest") { request, _ in
            let user = try auth.authenticate(request)
            guard let session = try latest(userID: user.id) else {
                throw HTTPError(.notFound, message: "No meal plan yet; generate one.")
            }
            return try JSON.response(session)
        }
        router.get("/api/mealplans/{id}") { request, context in
            let user = try auth.authenticate(request)
            return try JSON.response(try load(id: try context.parameters.require("id"), userID: user.id))
        }
        router.post("/api/mealplans/generate") { request, _ in
            let user = try auth.authenticate(request)
            let count = try database.writer.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mealplanSession WHERE userId = ?", arguments: [user.id]) ?? 0
            }
            let id = "mp_" + ServerDatabase.randomToken(bytes: 8)
            let session = MealPlanGenerator.generate(id: id, seed: Self.seedValue(seed, user.id, count), now: Date())
            try save(session, userID: user.id)
            return try JSON.response(session, status: .created)
        }
        router.post("/api/mealplans/{id}/critique") { request, context in
            let user = try auth.authenticate(request)
            let body = try await JSON.decode(CritiqueBody.self, from: request)
            let text = body.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, text.count <= 2000 else { throw HTTPError(.badRequest, message: "A critique needs 1 to 2000 characters.") }
            var session = try load(id: try context.parameters.require("id"), userID: user.id)
            guard !session.isFinalized else { throw HTTPError(.conflict, message: "This meal plan is finalized; start a new one to change it.") }
            MealPlanGenerator.critique(&session, text: text, now: Date(), seed: Self.seedValue(seed, session.id, 0))
            try save(session, userID: user.id)
            return try JSON.response(session)
        }
        router.post("/api/mealplans/{id}/finalize") { request, context in
            let user = try auth.authenticate(request)
            var session = try load(id: try context.parameters.require("id"), userID: user.id)
            if !session.isFinalized {
                session.isFinalized = true
                session.finalizedAt = Date()
                try save(session, userID: user.id)
            }
            return try JSON.response(session)
        }
    }

    func latest(userID: String) throws -> MealPlanSessionBody? {
        try database.writer.read { db in
            try Data.fetchOne(db, sql: "SELECT body FROM mealplanSession WHERE userId = ? ORDER BY createdAt DESC, rowid DESC LIMIT 1", arguments: [userID])
        }.map { try Self.decoder.decode(MealPlanSessionBody.self, from: $0) }
    }

    func load(id: String, userID: String) throws -> MealPlanSessionBody {
        let data = try database.writer.read { db in
            try Data.fetchOne(db, sql: "SELECT body FROM mealplanSession WHERE id = ? AND userId = ?", arguments: [id, userID])
        }
        guard let data else { throw HTTPError(.notFound, message: "No meal plan \(id).") }
        return try Self.decoder.decode(MealPlanSessionBody.self, from: data)
    }

    func save(_ session: MealPlanSessionBody, userID: String) throws {
        let data = try JSON.encoder.encode(session)
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO mealplanSession (id, userId, createdAt, body) VALUES (?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET body = excluded.body
                """, arguments: [session.id, userID, session.createdAt.timeIntervalSince1970, data])
        }
    }

    /// Seeds each demo user with one finalized plan, so a newcomer's first `mealplan show` has data.
    static func seedDemo(_ database: ServerDatabase, seed: Int, users: [String]) throws {
        let routes = MealPlanRoutes(database: database, auth: AuthRoutes(database: database, tokenTTL: 0), seed: seed)
        for (index, userID) in users.enumerated() {
            let created = Date().addingTimeInterval(-2 * 86400)
            var session = MealPlanGenerator.generate(id: "mp_seed\(index + 1)", seed: seedValue(seed, userID, 0), now: created)
            MealPlanGenerator.critique(&session, text: index == 0 ? "more protein please" : "vegetarian", now: created.addingTimeInterval(600), seed: seedValue(seed, session.id, 0))
            session.isFinalized = true
            session.finalizedAt = created.addingTimeInterval(1200)
            try routes.save(session, userID: userID)
        }
    }

    static func seedValue(_ seed: Int, _ key: String, _ count: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(seed)|\(key)|\(count)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
            return try Date.ISO8601FormatStyle().parse(text)
        }
        return decoder
    }()
}
