import Foundation
import Testing
import TestSupport

/// `brados coach show --follow` end to end: the built `brados` follows a conversation through
/// a `brados-server` process's Supabase Realtime while the test changes the server's rows (its
/// admin SQL route, and another process writing its SQLite file) and injects Realtime's faults
/// (a lost event, a dropped connection, a silent one, a refused join, an expired token).
/// After each, the cache (`--offline coach show`) equals the server's rows.
@Suite("End to end: coach show --follow", .serialized, .ownThread)
struct CoachFollowEndToEndTests {
    let home = TemporaryDirectory("e2e-coach-follow")
    let data = TemporaryDirectory("e2e-coach-follow-server")

    func environment(_ server: ServerProcess?) -> [String: String] {
        var environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path,
                           // A heartbeat a second: a silent connection is noticed in about two.
                           "BRADOS_REALTIME_HEARTBEAT": "1"]
        if let server { environment["BRADOS_SERVER"] = server.url.absoluteString }
        return environment
    }

    func brados(_ arguments: [String], _ server: ServerProcess?, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: environment(server), stdin: stdin)
    }

    /// The cached messages, (id, content) in order, read offline.
    func cached(_ id: String, _ server: ServerProcess?) throws -> [[String]] {
        let result = try brados(["coach", "show", id, "--json", "--offline"], server)
        guard result.status == 0, let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else { return [] }
        return (document["messages"] as? [[String: Any]] ?? []).map { [$0["id"] as? String ?? "", $0["content"] as? String ?? ""] }
    }

    func serverRows(_ id: String, _ server: ServerProcess) async throws -> [[String]] {
        try await server.sql("SELECT id, content FROM messages WHERE conversation_id = ? ORDER BY created_at, id", [id]).map { $0.map { "\($0)" } }
    }

    func insert(_ message: String, _ content: String, into conversation: String, _ server: ServerProcess) async throws {
        try await server.sql("""
            INSERT INTO messages (id, conversation_id, user_id, role, content, created_at)
            SELECT ?, id, user_id, 'user', ?, (julianday('now') - 2440587.5) * 86400.0 FROM conversations WHERE id = ?
            """, [message, content, conversation])
    }

    /// Another process writes the server's SQLite file (as logical replication sees any writer).
    func writeFile(_ sql: String) throws {
        let python = Process()
        python.executableURL = try SystemCommand.url("python3")
        python.arguments = ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1], timeout=10); c.execute(sys.argv[2]); c.commit()",
                            data.url.appendingPathComponent("server.sqlite").path, sql]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
    }

    @Test("follows inserts, edits and deletes whoever writes them; a lost event, a dropped, silent or refused connection and an expired token are caught up; Ctrl-C exits 130 with the cache equal to the server")
    func follows() async throws {
        let server = try ServerProcess(dataDirectory: data.url)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo").status == 0)
        let listed = try brados(["coach", "conversations", "--json"], server)
        let conversations = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])["conversations"] as? [[String: Any]]
        let id = try #require(conversations?.last?["id"] as? String)
        #expect(try brados(["coach", "show", id, "--follow", "--offline"], server).status == 64)

        let follow = try BuiltProducts.start("brados", ["coach", "show", id, "--follow", "--json", "--last", "2"], environment: environment(server))
        func reaches(_ label: String) async throws {
            let equal = try await eventually(timeout: .seconds(30), interval: .milliseconds(100)) {
                try await serverRows(id, server) == cached(id, server)
            }
            let (held, rows) = (try cached(id, server).suffix(3), try await serverRows(id, server).suffix(3))
            #expect(equal, "\(label): the cache \(held) against the server \(rows)")
        }

        #expect(try await eventually(timeout: .seconds(30)) { try await server.realtimeChannels() == 1 }, "it joins the conversation's channel")
        // An insert through the API's database, an edit and a delete by another process.
        try await insert("live-1", "hello from the server", into: id, server)
        #expect(try await eventually(timeout: .seconds(30)) { try cached(id, server).last == ["live-1", "hello from the server"] })
        try writeFile("UPDATE messages SET content = 'edited elsewhere' WHERE id = 'live-1'")
        #expect(try await eventually(timeout: .seconds(30)) { try cached(id, server).last == ["live-1", "edited elsewhere"] })
        try writeFile("DELETE FROM messages WHERE id = 'live-1'")
        try await reaches("a delete by another process")

        // A lost event, repaired by the catch-up after a dropped connection.
        try await server.addRealtimeFault(#"{"kind": "lose", "count": 1}"#)
        try await insert("lost-1", "this event is lost", into: id, server)
        try await Task.sleep(for: .milliseconds(300))
        try await server.addRealtimeFault(#"{"kind": "drop", "count": 1}"#)
        try await insert("dropped-1", "sent as the connection drops", into: id, server)
        try await reaches("a lost event and a dropped connection")

        // A silent connection (no events, no heartbeat replies), and a join refused once after it.
        try await server.addRealtimeFault(#"{"kind": "stall", "count": 1}"#)
        try await server.addRealtimeFault(#"{"kind": "refuse-join", "count": 1}"#)
        try await insert("stalled-1", "sent to a silent connection", into: id, server)
        try await reaches("a silent connection")

        // An edit while the connection is silent: no event reaches brados; the catch-up finds it
        // by its edit time (`updated_at`).
        try await server.addRealtimeFault(#"{"kind": "stall", "count": 1}"#)
        try await insert("stalled-2", "sent to another silent connection", into: id, server)
        try await server.sql("UPDATE messages SET content = 'edited in the gap' WHERE id = 'stalled-1'")
        try await reaches("an edit in a gap")

        // An expired token: the server closes the channel; brados renews it and goes on.
        try await server.expireAccessTokens()
        try await insert("expired-1", "sent after the token expired", into: id, server)
        try await reaches("an expired token")
        try await server.addRealtimeFault(#"{"kind": "close-error", "count": 1}"#)
        try await insert("error-1", "sent as the server fails", into: id, server)
        try await reaches("a close with an error")

        follow.send(SIGINT)
        let result = follow.finish()
        #expect(result.status == 130, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.allSatisfy { $0 != nil }, "every line one JSON object: \(result.stdout)")
        let problems = try JSONContract(name: "coach-follow").problems(in: result.stdout)
        #expect(problems.isEmpty, "every line keeps contract/json/coach-follow.schema.json: \(problems.prefix(5).joined(separator: "\n"))")
        let events = lines.compactMap { $0?["event"] as? String }
        #expect(events.prefix(3) == ["conversation", "message", "message"])
        #expect(events.contains("added") && events.contains("changed") && events.contains("deleted") && events.contains("reconnecting"), "\(events)")
        let added = lines.compactMap { line -> String? in line?["event"] as? String == "added" ? (line?["message"] as? [String: Any])?["id"] as? String : nil }
        #expect(Set(["live-1", "lost-1", "dropped-1", "stalled-1", "expired-1", "error-1"]).isSubset(of: Set(added)), "\(added)")
        let rows = try await serverRows(id, server)
        #expect(try cached(id, server) == rows)
    }

    @Test("beside sync --watch, which stores each message first: the follower prints every message once, in order")
    func besideTheWatch() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo").status == 0)
        let listed = try brados(["coach", "conversations", "--json"], server)
        let conversations = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])["conversations"] as? [[String: Any]]
        let id = try #require(conversations?.first?["id"] as? String)
        // Its messages cached: the watch keeps them following.
        #expect(try brados(["coach", "show", id, "--last", "1"], server).status == 0)
        let watch = try BuiltProducts.start("brados", ["sync", "--watch"], environment: environment(server))
        defer { watch.send(SIGKILL); _ = watch.finish() }
        #expect(try await eventually(timeout: .seconds(30)) { try await server.realtimeChannels() == 1 }, "the watch joins")
        let follow = try BuiltProducts.start("brados", ["coach", "show", id, "--follow", "--json", "--last", "1"], environment: environment(server))
        #expect(try await eventually(timeout: .seconds(30)) { try await server.realtimeChannels() == 2 }, "the follower joins")
        // The follower's own events come 400 ms after the watch's: the watch has stored each row by then.
        try await server.addRealtimeFault(#"{"kind": "delay", "delayMs": 400, "topic": "realtime:coach:\#(id)"}"#)
        let sent = (1...6).map { "beside-\($0)" }
        for message in sent {
            try await server.sql("""
                INSERT INTO messages (id, conversation_id, user_id, role, content, created_at)
                SELECT ?, id, user_id, 'assistant', 'a reply while the watch runs', (julianday('now') - 2440587.5) * 86400.0 FROM conversations WHERE id = ?
                """, [message, id])
            try await Task.sleep(for: .milliseconds(300))
        }
        func added() -> [String] {
            follow.stdoutSoFar.split(separator: "\n").compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["event"] as? String == "added"
                else { return nil }
                return (object["message"] as? [String: Any])?["id"] as? String
            }
        }
        _ = try await eventually(timeout: .seconds(20), interval: .milliseconds(100)) { added().count >= sent.count }
        try await Task.sleep(for: .seconds(1))
        follow.send(SIGINT)
        let result = follow.finish()
        #expect(result.status == 130, "\(result.stderr)")
        #expect(added() == sent, "each message printed once, in order: \(added())")
    }

    @Test("the embedded default: a conversation deleted by another brados process ends the follow")
    func embedded() async throws {
        // No server configured: the embedded backend signs in by itself.
        let listed = try brados(["coach", "conversations", "--json"], nil)
        #expect(listed.status == 0, "\(listed.stderr)")
        let conversations = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])["conversations"] as? [[String: Any]]
        let id = try #require(conversations?.last?["id"] as? String)
        let follow = try BuiltProducts.start("brados", ["coach", "show", id, "--follow", "--last", "1"], environment: environment(nil))
        // Once it follows, the delete is an event; before that, its catch-up finds it: either way it ends.
        try await Task.sleep(for: .milliseconds(500))
        #expect(try brados(["coach", "delete", id, "--yes"], nil).status == 0)
        let result = follow.finish(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("The conversation was deleted on the server."), "\(result.stdout)")
    }

    @Test("a token near its expiry is renewed and handed to the channel (access_token): the connection stays, events keep coming")
    func renewsInPlace() async throws {
        // Tokens of 62 s: with a heartbeat a second, brados renews at its first heartbeat (a minute before expiry).
        let server = try ServerProcess(extraArguments: ["--token-ttl", "62"])
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo").status == 0)
        let listed = try brados(["coach", "conversations", "--json"], server)
        let conversations = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])["conversations"] as? [[String: Any]]
        let id = try #require(conversations?.last?["id"] as? String)
        let follow = try BuiltProducts.start("brados", ["coach", "show", id, "--follow", "--json", "--last", "1"], environment: environment(server))
        #expect(try await eventually(timeout: .seconds(30)) { try await server.realtimeChannels() == 1 })
        try await server.resetStats()
        #expect(try await eventually(timeout: .seconds(30)) { try await server.stats().byRoute["POST /auth/v1/token"] ?? 0 >= 1 }, "renewed")
        try await insert("after-renewal", "still following", into: id, server)
        #expect(try await eventually(timeout: .seconds(30)) { try cached(id, server).last?.first == "after-renewal" })
        follow.send(SIGINT)
        let result = follow.finish()
        #expect(result.status == 130)
        #expect(!result.stdout.contains("\"reconnecting\""), "the connection was kept: \(result.stdout)")
    }
}
