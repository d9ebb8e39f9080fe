import Foundation
import GRDB
import Hummingbird

/// BradOS REST visits: list (newest first), one, create, delete. Bearer token; a user
/// only ever sees their own visits.
struct VisitRoutes {
    let database: ServerDatabase
    let auth: AuthRoutes

    struct Visit: Codable, Sendable, Equatable {
        var id: String
        var place: String
        var address: String?
        var visitedAt: Date
        var durationMinutes: Int
        var notes: String?
        var createdAt: Date
    }

    struct NewVisit: Decodable {
        var place: String
        var address: String?
        var visitedAt: String
        var durationMinutes: Int
        var notes: String?
    }

    static func migrate(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3-visits") { db in
            try db.create(table: "visit") { t in
                t.primaryKey("id", .text)
                t.column("userId", .text).notNull().references("user", onDelete: .cascade).indexed()
                t.column("place", .text).notNull()
                t.column("address", .text)
                t.column("visitedAt", .double).notNull()
                t.column("durationMinutes", .integer).notNull()
                t.column("notes", .text)
                t.column("createdAt", .double).notNull()
            }
        }
    }

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/api/visits") { request, _ in
            let user = try auth.authenticate(request)
            return try JSON.response(try list(userID: user.id))
        }
        router.get("/api/visits/{id}") { request, context in
            let user = try auth.authenticate(request)
            guard let visit = try load(id: try context.parameters.require("id"), userID: user.id) else {
                throw HTTPError(.notFound, message: "No such visit.")
            }
            return try JSON.response(visit)
        }
        router.post("/api/visits") { request, _ in
            let user = try auth.authenticate(request)
            let body = try await JSON.decode(NewVisit.self, from: request)
            let place = body.place.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...200).contains(place.count) else { throw HTTPError(.badRequest, message: "place must be 1 to 200 characters.") }
            guard (1...1440).contains(body.durationMinutes) else { throw HTTPError(.badRequest, message: "durationMinutes must be 1 to 1440.") }
            guard let visitedAt = Self.date(body.visitedAt) else { throw HTTPError(.badRequest, message: "visitedAt must be an ISO-8601 date.") }
            guard (body.notes?.count ?? 0) <= 2000 else { throw HTTPError(.badRequest, message: "notes must be at most 2000 characters.") }
            let visit = Visit(id: "v_" + ServerDatabase.randomToken(bytes: 4), place: place, address: body.address,
                              visitedAt: visitedAt, durationMinutes: body.durationMinutes, notes: body.notes, createdAt: Date())
            try insert(visit, userID: user.id)
            return try JSON.response(visit, status: .created)
        }
        router.delete("/api/visits/{id}") { request, context in
            let user = try auth.authenticate(request)
            let id = try context.parameters.require("id")
            let deleted = try database.writer.write { db in
                try db.execute(sql: "DELETE FROM visit WHERE id = ? AND userId = ?", arguments: [id, user.id])
                return db.changesCount
            }
            guard deleted > 0 else { throw HTTPError(.notFound, message: "No such visit.") }
            return Response(status: .noContent)
        }
    }

    func list(userID: String) throws -> [Visit] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM visit WHERE userId = ? ORDER BY visitedAt DESC, id", arguments: [userID]).map(Self.visit)
        }
    }

    func load(id: String, userID: String) throws -> Visit? {
        try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM visit WHERE id = ? AND userId = ?", arguments: [id, userID]).map(Self.visit)
        }
    }

    func insert(_ visit: Visit, userID: String) throws {
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO visit (id, userId, place, address, visitedAt, durationMinutes, notes, createdAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [visit.id, userID, StoredText.value(visit.place), StoredText.value(visit.address), visit.visitedAt.timeIntervalSince1970,
                                 visit.durationMinutes, StoredText.value(visit.notes), visit.createdAt.timeIntervalSince1970])
        }
    }

    static func visit(_ row: Row) -> Visit {
        Visit(id: row["id"], place: row["place"], address: row["address"],
              visitedAt: Date(timeIntervalSince1970: row["visitedAt"]), durationMinutes: row["durationMinutes"],
              notes: row["notes"], createdAt: Date(timeIntervalSince1970: row["createdAt"]))
    }

    static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    /// About twenty realistic visits per demo user over the last weeks.
    static func seedDemo(_ database: ServerDatabase, users: [String]) throws {
        let places: [(String, String, String)] = [
            ("Riverside Dental", "14 Mill Lane", "Six-month check-up; no cavities, next cleaning booked for spring."),
            ("Greenway Physio", "3 Station Road", "Knee mobility work, new band exercises twice a day."),
            ("Harbor Family Clinic", "220 Harbor St", "Annual physical, blood pressure 118/76, labs ordered."),
            ("Northside Pharmacy", "8 Elm Parade", "Picked up prescription refill and flu shot."),
            // Text in other scripts, as people's own data holds: Japanese (with emoji), Hebrew
            // (a Latin name isolated inside it, as Unicode recommends), Chinese.
            ("東京駅前クリニック", "東京都千代田区丸の内1-9-1", "血液検査と健康診断。結果は来週、ランニングは続けてよいとのこと。家族👨‍👩‍👧‍👦で受診🇯🇵"),
            ("מרפאה \u{2068}Dr. Cohen\u{2069}", "רחוב הרצל 12, תל אביב", "בדיקת עור שנתית, הכול תקין. לחזור בעוד שנה."),
            ("Lakeside Gym", "77 Lake Ave", "Intro session with a trainer, set 12-week strength goals."),
            ("Maple Nutrition", "2 Maple Court", "Reviewed food diary; more protein at breakfast."),
            ("北京协和医院体检中心", "北京市东城区帅府园1号", "年度体检，空腹抽血查血脂。"),
            ("Calm Mind Therapy", "16 Willow Way", "Weekly session, worked on sleep routine."),
        ]
        let day: TimeInterval = 86400
        let now = Date().addingTimeInterval(-86400)
        try database.writer.write { db in
            for (userIndex, userID) in users.enumerated() {
                for index in 0..<(userIndex == 0 ? 20 : 12) {
                    let place = places[(index * 3 + userIndex) % places.count]
                    // Daytime visits every two to three days, most recent first.
                    let dayStart = (now.timeIntervalSince1970 / day).rounded(.down) * day
                    let visitedAt = Date(timeIntervalSince1970: dayStart - Double(index * 5 / 2) * day
                        + Double(8 + (index * 3) % 9) * 3600 + Double((index * 17) % 4) * 900)
                    try db.execute(sql: """
                        INSERT INTO visit (id, userId, place, address, visitedAt, durationMinutes, notes, createdAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: ["v_seed\(userIndex)\(String(format: "%02d", index))", userID, place.0, place.1,
                                         visitedAt.timeIntervalSince1970, [30, 45, 60, 20, 90][index % 5], place.2,
                                         visitedAt.timeIntervalSince1970])
                }
            }
        }
    }
}
