import Foundation
import Testing
import TestSupport

/// The coach domain end to end: the built `brados` against a `brados-server` process
/// speaking Supabase Auth and PostgREST.
@Suite("End to end: coach", .serialized, .ownThread)
struct CoachEndToEndTests {
    let home = TemporaryDirectory("e2e-coach")

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ], stdin: stdin)
    }

    /// Signs in with Supabase Auth (`auth login --service supabase`).
    func signIn(_ server: ServerProcess) throws {
        let result = try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo")
        #expect(result.status == 0, "\(result.stderr)")
    }

    func document(_ result: BuiltProducts.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\n\(result.stderr)")
    }

    var database: URL { home.url.appendingPathComponent("data/users/default/coach/coach.sqlite") }

    @Test("conversations and a 2,400-message conversation page through PostgREST, then read the same offline when the server is gone")
    func browseThenOffline() async throws {
        let server = try ServerProcess()
        try signIn(server)
        try await server.resetStats()
        let list = try brados(["coach", "conversations", "--json"], server)
        #expect(list.status == 0, "\(list.stderr)")
        let conversations = try #require(try document(list)["conversations"] as? [[String: Any]])
        #expect(conversations.count == 8)
        #expect((try document(list)["source"] as? [String: Any])?["kind"] as? String == "network")
        let busiest = try #require(conversations.first { $0["messageCount"] as? Int == 2400 }?["id"] as? String)

        let show = try brados(["coach", "show", busiest, "--json"], server)
        #expect(show.status == 0, "\(show.stderr)")
        let messages = try #require(try document(show)["messages"] as? [[String: Any]])
        #expect(messages.count == 2400)
        let times = messages.compactMap { $0["createdAt"] as? String }
        #expect(times == times.sorted())
        let stats = try await server.stats()
        #expect(stats.byRoute["GET /rest/v1/messages"] == 5) // 500 per page, Content-Range until 2400
        #expect(stats.byRoute["GET /rest/v1/conversations"] == 2) // the list, then the one row `show` checks

        // The server goes away: the same data come from SQLite, marked as cached.
        server.stop()
        let offlineList = try brados(["coach", "--json"], server)
        #expect(offlineList.status == 0, "\(offlineList.stderr)")
        #expect((try document(offlineList)["conversations"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                == conversations.compactMap { $0["id"] as? String })
        let source = try #require(try document(offlineList)["source"] as? [String: Any])
        #expect(source["kind"] as? String == "cache")
        #expect(source["refreshing"] as? Bool == true, "a refresh behind was started: \(source)")
        let offlineShow = try brados(["coach", "show", String(busiest.prefix(8)), "--json"], server)
        #expect(offlineShow.status == 0, "\(offlineShow.stderr)")
        #expect((try document(offlineShow)["messages"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                == messages.compactMap { $0["id"] as? String })
        let human = try brados(["--offline", "coach", "show", String(busiest.prefix(8)), "--last", "3"], server)
        #expect(human.status == 0)
        #expect(human.stdout.contains("from cache") && human.stdout.contains("#2400"))
        // Never fetched and offline: a clear error and the "needs network" exit code.
        let other = try #require(conversations.first { $0["messageCount"] as? Int == 4 }?["id"] as? String)
        let missing = try brados(["--offline", "coach", "show", other], server)
        #expect(missing.status == 5)
        #expect(missing.stderr.contains("no cached copy"))
    }

    @Test("delete: refused by the server leaves the cache as it was; confirmed, the conversation and its messages leave the cache")
    func delete() async throws {
        let server = try ServerProcess()
        try signIn(server)
        let list = try document(try brados(["coach", "--json"], server))
        let conversations = try #require(list["conversations"] as? [[String: Any]])
        let target = try #require(conversations.first { $0["messageCount"] as? Int == 75 }?["id"] as? String)
        #expect(try brados(["coach", "show", target], server).status == 0)

        let unconfirmed = try brados(["coach", "delete", target], server)
        #expect(unconfirmed.status == 64)
        #expect(unconfirmed.stderr.contains("--yes"))

        // A refusal (403: no retries, so the test does not wait through a backoff).
        try await server.addFault(#"{"match":"DELETE /rest/v1/conversations","status":403}"#)
        let failed = try brados(["coach", "delete", target, "--yes"], server)
        #expect(failed.status == 7, "\(failed.stderr)")
        let stillCached = try brados(["--offline", "coach", "show", target, "--json"], server)
        #expect((try document(stillCached)["messages"] as? [Any])?.count == 75)

        try await server.clearFaults()
        let deleted = try brados(["coach", "delete", String(target.prefix(8)), "--yes"], server)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout.contains("Deleted conversation \(target)"))
        let gone = try brados(["--offline", "coach", "show", target], server)
        #expect(gone.status == 5)
        let offlineList = try document(try brados(["--offline", "coach", "--json"], server))
        #expect((offlineList["conversations"] as? [[String: Any]])?.count == 7)
        let again = try brados(["coach", "delete", target, "--yes"], server)
        #expect(again.status == 3)
    }

    @Test("the context profile is served from SQLite within the hour; an expired token is renewed once with the rotating refresh token")
    func contextAndRenewal() async throws {
        let server = try ServerProcess()
        try signIn(server)
        try await server.resetStats()
        let first = try brados(["coach", "context", "--json"], server)
        #expect(first.status == 0, "\(first.stderr)")
        let goals = (try document(first)["contextProfile"] as? [String: Any])?["goals"] as? [[String: Any]]
        #expect(goals?.first?["content"] as? String == "Run a 10K by spring")
        let second = try brados(["coach", "context"], server)
        #expect(second.status == 0)
        #expect(second.stdout.contains("Health before hustle") && second.stdout.contains("fresh for"))
        #expect(try await server.stats().byRoute["GET /rest/v1/context_profiles"] == 1)

        // Every access token expires: the next command renews once (Supabase refresh grant) and goes on.
        try await server.expireAccessTokens()
        try await server.resetStats()
        let renewed = try brados(["coach", "--json"], server)
        #expect(renewed.status == 0, "\(renewed.stderr)")
        let stats = try await server.stats()
        #expect(stats.byRoute["POST /auth/v1/token"] == 1)
        #expect(stats.byRoute["GET /rest/v1/conversations"] == 2)
        let after = try brados(["coach", "--json"], server)
        #expect(after.status == 0)
        #expect(try await server.stats().byRoute["POST /auth/v1/token"] == 1)
    }

    @Test("auth logout erases every cached conversation, message and context profile (the database goes)")
    func logoutErases() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["coach"], server).status == 0)
        #expect(try brados(["coach", "context"], server).status == 0)
        #expect(FileManager.default.fileExists(atPath: database.path))
        let logout = try brados(["auth", "logout"], server)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database.path))
        #expect(!FileManager.default.fileExists(atPath: database.deletingLastPathComponent().path))
        let offline = try brados(["--offline", "coach"], server)
        #expect(offline.status == 5)
    }
}
