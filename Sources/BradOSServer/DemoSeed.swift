import Foundation

/// The deterministic demo data every fresh reference server starts with.
enum DemoSeed {
    /// The demo accounts: `demo`/`demo` and a second user, `alice`/`alice`, to test separation.
    static let users: [(id: String, username: String, email: String, name: String, password: String)] = [
        ("8f5c2a64-0d7e-4a53-9d51-3f0c8d0b7a11", "demo", "demo@example.com", "Demo User", "demo"),
        ("1b7e9c20-64a2-4f0e-8c3b-5d2f1a9e4c22", "alice", "alice@example.com", "Alice Martin", "alice"),
    ]

    static func seed(_ database: ServerDatabase, seed: Int) throws {
        for user in users {
            try database.addUser(id: user.id, username: user.username, email: user.email, displayName: user.name, password: user.password)
        }
        try MealPlanRoutes.seedDemo(database, seed: seed, users: users.map(\.id))
        try VisitRoutes.seedDemo(database, users: users.map(\.id))
        try CoachRoutes.seedDemo(database, users: users.map(\.id))
        try PlanRoutes.seedDemo(database, users: users.map(\.id))
    }
}
