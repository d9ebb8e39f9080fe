import Foundation
import GRDB

/// The deterministic demo data every reference server starts with.
///
/// Each domain is seeded when its tables are empty, so a server whose database predates a
/// domain (the embedded backend of an older brados) gets that domain's demo data too.
enum DemoSeed {
    /// The demo accounts: `demo`/`demo` and a second user, `alice`/`alice`, to test separation.
    static let users: [(id: String, username: String, email: String, name: String, password: String)] = [
        ("8f5c2a64-0d7e-4a53-9d51-3f0c8d0b7a11", "demo", "demo@example.com", "Demo User", "demo"),
        ("1b7e9c20-64a2-4f0e-8c3b-5d2f1a9e4c22", "alice", "alice@example.com", "Alice Martin", "alice"),
    ]

    static func seed(_ database: ServerDatabase, seed: Int, coachMessages: Int? = nil, coachConversations: Int? = nil) throws {
        if try database.userCount() == 0 {
            for user in users {
                try database.addUser(id: user.id, username: user.username, email: user.email, displayName: user.name, password: user.password)
            }
        }
        let ids = users.map(\.id)
        // Only for a database that holds the demo users (not one a test filled otherwise).
        guard try database.writer.read({ try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM user WHERE id = ?", arguments: [ids[0]]) ?? 0 }) == 1 else { return }
        if try isEmpty("mealplanSession", database) { try MealPlanRoutes.seedDemo(database, seed: seed, users: ids) }
        if try isEmpty("visit", database) { try VisitRoutes.seedDemo(database, users: ids) }
        if try isEmpty("conversations", database) { try CoachRoutes.seedDemo(database, users: ids, messages: coachMessages, conversations: coachConversations) }
        if try isEmpty("plan_profile", database) { try NutritionRoutes.seedDemo(database, users: ids) }
    }

    static func isEmpty(_ table: String, _ database: ServerDatabase) throws -> Bool {
        try database.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 } == 0
    }
}
