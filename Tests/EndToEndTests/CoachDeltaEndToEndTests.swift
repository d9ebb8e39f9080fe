import Foundation
import Testing
import TestSupport

/// The coach's delta refresh end to end: random inserts, updates, late arrivals and deletes
/// made on a `brados-server` process between refreshes of the built `brados`; after each
/// refresh its copy must equal the server's (ids, fields shown, order). 25 rounds here,
/// `BRADOS_DELTA_ROUNDS` more (the reliability suite's full run: 200).
@Suite("End to end: coach delta refresh", .serialized, .ownThread)
struct CoachDeltaEndToEndTests {
    let home = TemporaryDirectory("e2e-coach-delta")
    static let user = "8f5c2a64-0d7e-4a53-9d51-3f0c8d0b7a11"

    /// Each read waits for the server (`refresh.wait`): the copy it prints is the one the delta refresh made.
    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "BRADOS_REFRESH_WAIT": "60s",
        ], stdin: stdin)
    }

    func json(_ arguments: [String], _ server: ServerProcess) throws -> [String: Any] {
        let result = try brados(arguments + ["--json"], server)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    }

    /// The conversation list brados shows: (id, title) in order.
    func localList(_ server: ServerProcess) throws -> [[String]] {
        let list = try #require(try json(["coach", "conversations"], server)["conversations"] as? [[String: Any]])
        return list.map { [$0["id"] as? String ?? "", $0["title"] as? String ?? ""] }
    }

    func localMessages(_ id: String, _ server: ServerProcess) throws -> [[String]]? {
        let result = try brados(["coach", "show", id, "--json"], server)
        if result.status == 3 { return nil } // deleted on the server
        #expect(result.status == 0, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (document["messages"] as? [[String: Any]] ?? []).map { [$0["id"] as? String ?? "", $0["content"] as? String ?? ""] }
    }

    func serverList(_ server: ServerProcess) async throws -> [[String]] {
        try await server.sql("SELECT id, title FROM conversations WHERE user_id = ? ORDER BY updated_at DESC, id", [Self.user]).map { $0.map { "\($0)" } }
    }

    func serverMessages(_ id: String, _ server: ServerProcess) async throws -> [[String]]? {
        guard try await !server.sql("SELECT id FROM conversations WHERE id = ?", [id]).isEmpty else { return nil }
        return try await server.sql("SELECT id, content FROM messages WHERE conversation_id = ? ORDER BY created_at, id", [id]).map { $0.map { "\($0)" } }
    }

    @Test("random changes on the server between refreshes: the copy always ends equal, at the cost of what changed")
    func randomized() async throws {
        let server = try ServerProcess(extraArguments: ["--seed-messages", "400", "--seed-conversations", "40"])
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo").status == 0)
        let rounds = ProcessInfo.processInfo.environment["BRADOS_DELTA_ROUNDS"].flatMap(Int.init) ?? 25
        var random = SystemRandomNumberGenerator()
        var opened = Array(try localList(server).prefix(3).map { $0[0] })
        for id in opened { _ = try localMessages(id, server) }
        var clock = Date().timeIntervalSince1970 + 10
        var next = 0
        for round in 0..<rounds {
            let conversations = try await serverList(server).map { $0[0] }
            // 0-5 changes; a conversation that is shown gets either a late message or a delete
            // per round, never both (together they are the count rule's blind spot, covered by the daily check).
            var touched: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                clock += Double(Int.random(in: 0...2, using: &random)) / 1000 // equal times on purpose
                next += 1
                let target = (Bool.random(using: &random) ? opened.randomElement(using: &random) : nil) ?? conversations.randomElement(using: &random) ?? ""
                switch Int.random(in: 0..<6, using: &random) {
                case 0:
                    try await server.sql("""
                        INSERT INTO conversations (id, user_id, title, domain, last_message_at, message_count, created_at, updated_at)
                        VALUES (?, ?, ?, 'general', NULL, 0, ?, ?)
                        """, [String(format: "00000000-0000-4000-8000-%012d", next), Self.user, "new \(next)", "\(clock)", "\(clock)"])
                case 1:
                    try await server.sql("UPDATE conversations SET title = ?, updated_at = ? WHERE id = ?", ["renamed \(next)", "\(clock)", target])
                case 2 where !opened.contains(target) || Int.random(in: 0..<4, using: &random) == 0:
                    try await server.sql("DELETE FROM conversations WHERE id = ?", [target])
                case 3 where touched[target] != "late":
                    touched[target] = "delete"
                    try await server.sql("DELETE FROM messages WHERE id = (SELECT id FROM messages WHERE conversation_id = ? ORDER BY random() LIMIT 1)", [target])
                default:
                    let late = Bool.random(using: &random) && touched[target] != "delete"
                    if late { touched[target] = "late" }
                    let time = late ? clock - Double(Int.random(in: 60...86400, using: &random)) : clock
                    try await server.sql("""
                        INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) SELECT ?, id, user_id, 'assistant', ?, ? FROM conversations WHERE id = ?
                        """, [String(format: "11111111-0000-4000-8000-%012d", next), "message \(next)", "\(time)", target])
                }
            }
            #expect(try localList(server) == (try await serverList(server)), "round \(round)")
            for id in opened {
                let local = try localMessages(id, server)
                #expect(local == (try await serverMessages(id, server)), "round \(round), conversation \(id)")
            }
            // The search index holds exactly what the store holds, after every kind of change.
            #expect(try brados(["search", "zzzz", "--domain", "coach"], server).status == 0)
            #expect(try SearchIndexCheck.indexed(home: home.url, domain: "coach") == (try SearchIndexCheck.coachCache(home: home.url)), "round \(round)")
            opened = opened.filter { id in conversations.contains(id) }
            if opened.count < 3, let another = try await serverList(server).map({ $0[0] }).first(where: { !opened.contains($0) }) {
                opened.append(another)
                _ = try localMessages(another, server)
            }
        }

        // Nothing changed: the list and a shown conversation cost 2 requests each and a few hundred bytes.
        // (The conversation is one the server still has: the last round may have deleted an opened one.)
        let shownID = try #require(try await serverList(server).map { $0[0] }.first)
        _ = try localMessages(shownID, server)
        try await server.resetStats()
        _ = try localList(server)
        let list = try await server.stats()
        #expect(list.total == 2 && list.bytes <= 4096, "\(list)")
        try await server.resetStats()
        _ = try localMessages(shownID, server)
        let shown = try await server.stats()
        #expect(shown.total == 2 && shown.bytes <= 4096, "\(shown)")
    }
}
