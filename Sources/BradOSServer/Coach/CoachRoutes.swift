import Foundation
import GRDB
import Hummingbird

/// The coach's Supabase project: PostgREST over `conversations`, `messages` and
/// `context_profiles`, behind the project's API key and the user's JWT.
struct CoachRoutes {
    let database: ServerDatabase
    let auth: SupabaseAuthRoutes

    static let conversations = PostgRESTTable(
        name: "conversations",
        columns: [("id", .text), ("user_id", .text), ("title", .text), ("domain", .text), ("last_message_at", .timestamp),
                  ("message_count", .integer), ("created_at", .timestamp), ("updated_at", .timestamp)],
        owner: "user_id", defaultOrder: "\"id\"", children: ["messages": "conversation_id"])
    static let messages = PostgRESTTable(
        name: "messages",
        columns: [("id", .text), ("conversation_id", .text), ("user_id", .text), ("role", .text), ("content", .text),
                  ("created_at", .timestamp), ("updated_at", .timestamp)],
        owner: "user_id", defaultOrder: "\"id\"")
    static let contextProfiles = PostgRESTTable(
        name: "context_profiles",
        columns: [("id", .text), ("user_id", .text), ("values", .json), ("goals", .json), ("situation", .json),
                  ("created_at", .timestamp), ("updated_at", .timestamp)],
        owner: "user_id", defaultOrder: "\"id\"")

    static func migrate(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5-coach") { db in
            try db.execute(sql: """
                CREATE TABLE conversations (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    title TEXT,
                    domain TEXT,
                    last_message_at REAL,
                    message_count INTEGER NOT NULL DEFAULT 0,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL
                );
                CREATE INDEX conversations_user ON conversations(user_id, updated_at);
                CREATE TABLE messages (
                    id TEXT PRIMARY KEY,
                    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id TEXT NOT NULL,
                    role TEXT NOT NULL,
                    content TEXT NOT NULL,
                    created_at REAL NOT NULL
                );
                CREATE INDEX messages_conversation ON messages(conversation_id, created_at);
                CREATE TABLE context_profiles (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL UNIQUE REFERENCES user(id) ON DELETE CASCADE,
                    "values" TEXT NOT NULL,
                    goals TEXT NOT NULL,
                    situation TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL
                );
                """)
        }
    }

    func register<Context: RequestContext>(on router: Router<Context>) {
        for table in [Self.conversations, Self.messages, Self.contextProfiles] {
            router.get("/rest/v1/\(table.name)") { request, _ in
                try handle(request) { userID, db in try table.select(request, userID: userID, db: db) }
            }
            router.delete("/rest/v1/\(table.name)") { request, _ in
                try handle(request) { userID, db in try table.delete(request, userID: userID, db: db) }
            }
        }
    }

    /// API key, then JWT (anon without one), then the table operation in one transaction.
    private func handle(_ request: Request, _ body: (String?, Database) throws -> Response) throws -> Response {
        if let rejected = auth.checkAPIKey(request) { return rejected }
        let userID: String?
        do { userID = try auth.bearerUser(request)?.id } catch {
            var response = PostgRESTTable.error(.unauthorized, code: "PGRST301", message: "JWT expired")
            response.headers[.wwwAuthenticate] = #"Bearer error="invalid_token", error_description="JWT expired""#
            return response
        }
        do {
            return try database.writer.write { db in try body(userID, db) }
        } catch let failure as PostgRESTTable.Failure {
            return failure.response
        }
    }
}
