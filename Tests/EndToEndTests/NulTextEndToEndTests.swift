import Foundation
import Testing
import TestSupport

/// A NUL (U+0000) in a server's text, end to end: the reference server keeps it (its SQLite
/// would cut a bound C string there), the built brados keeps it in its cache, shows it as `^@`
/// and writes it as `\u0000` in `--json`, online and offline.
@Suite("End to end: a NUL in a server's text", .serialized, .ownThread)
struct NulTextEndToEndTests {
    let home = TemporaryDirectory("e2e-nul")
    static let user = "8f5c2a64-0d7e-4a53-9d51-3f0c8d0b7a11"

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil) throws -> BuiltProducts.Result {
        let result = try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "BRADOS_REFRESH_WAIT": "60s",
        ], stdin: stdin)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    func document(_ result: BuiltProducts.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    }

    @Test("a coach message and a title with a NUL: the server's row whole, ^@ in the text, \\u0000 in --json, the same offline")
    func coach() async throws {
        let server = try ServerProcess(extraArguments: ["--seed-messages", "10", "--seed-conversations", "2"])
        _ = try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo")
        let id = try #require(try await server.sql("SELECT id FROM conversations WHERE user_id = ? ORDER BY id LIMIT 1", [Self.user]).first?.first as? String)
        try await server.sql("INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) VALUES ('nul-1', ?, ?, 'assistant', ?, ?)",
                             [id, Self.user, "before\u{0}after", String(Date().timeIntervalSince1970)])
        try await server.sql("UPDATE conversations SET title = ? WHERE id = ?", ["Title\u{0}cut", id])
        #expect(try await server.sql("SELECT content FROM messages WHERE id = 'nul-1'").first?.first as? String == "before\u{0}after")

        let text = try brados(["coach", "show", id], server).stdout
        #expect(text.contains("before^@after"), "\(text)")
        #expect(!text.contains("\u{0}"), "a NUL reaches the terminal")
        for offline in [false, true] {
            let prefix = offline ? ["--offline"] : []
            let shown = try brados(prefix + ["coach", "show", id, "--json"], server)
            #expect(shown.stdout.contains(#"before\u0000after"#), "\(shown.stdout)")
            let messages = try #require(try document(shown)["messages"] as? [[String: Any]])
            #expect(messages.contains { $0["content"] as? String == "before\u{0}after" }, "offline: \(offline)")
            let list = try #require(try document(try brados(prefix + ["coach", "conversations", "--json"], server))["conversations"] as? [[String: Any]])
            #expect(list.contains { $0["title"] as? String == "Title\u{0}cut" }, "offline: \(offline): \(list.map { $0["title"] ?? "" })")
        }
    }

    @Test("a visit's place and notes with a NUL: kept by the server, ^@ in the list, \\u0000 in --json")
    func visits() async throws {
        let server = try ServerProcess()
        _ = try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo")
        let now = Date().timeIntervalSince1970
        try await server.sql("INSERT INTO visit (id, userId, place, address, visitedAt, durationMinutes, notes, createdAt) VALUES ('v_nul', (SELECT id FROM user WHERE username = 'demo'), ?, 'Main St 1', ?, 30, ?, ?)",
                             ["Clinic\u{0}North", String(now - 3600), "fasting\u{0}yes", String(now)])
        let list = try brados(["visits", "list", "--refresh"], server).stdout
        #expect(list.contains("Clinic^@North"), "\(list)")
        let json = try brados(["visits", "list", "--json"], server)
        #expect(json.stdout.contains(#"fasting\u0000yes"#), "\(json.stdout)")
        let visits = try #require(try document(json)["visits"] as? [[String: Any]])
        #expect(visits.contains { $0["place"] as? String == "Clinic\u{0}North" && $0["notes"] as? String == "fasting\u{0}yes" })
    }
}
