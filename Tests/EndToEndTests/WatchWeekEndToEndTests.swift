import Foundation
import Testing
import TestSupport

/// `brados sync --watch` as it lives for days (issue 65): the built `brados` beside servers
/// that move, go away, come back, rate-limit and revoke sessions, and a person who changes its
/// configuration meanwhile. What it says is what a journal shows days later: each trouble once,
/// and once when it ends.
@Suite("End to end: sync --watch for days", .serialized, .ownThread)
struct WatchWeekEndToEndTests {
    let home = TemporaryDirectory("e2e-watch-week")

    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_REALTIME_HEARTBEAT": "1", "BRADOS_WATCH_RESTART": "1"]
            .merging(extra) { $1 }
    }

    func brados(_ arguments: [String], stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: environment(), stdin: stdin)
    }

    func signIn() throws {
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], stdin: "demo").status == 0)
    }

    func firstConversation() throws -> String {
        let listed = try brados(["coach", "conversations", "--json"])
        let conversations = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])["conversations"] as? [[String: Any]]
        return try #require(conversations?.first?["id"] as? String)
    }

    func insert(_ id: String, into conversation: String, _ server: ServerProcess) async throws {
        try await server.sql("""
            INSERT INTO messages (id, conversation_id, user_id, role, content, created_at)
            SELECT ?, id, user_id, 'assistant', 'from the watch test', (julianday('now') - 2440587.5) * 86400.0 FROM conversations WHERE id = ?
            """, [id, conversation])
    }

    func cachedIDs(_ conversation: String) throws -> [String] {
        let result = try brados(["coach", "show", conversation, "--json", "--offline"])
        let document = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (document?["messages"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    func lines(_ text: String, containing words: String) -> Int { text.split(separator: "\n").filter { $0.contains(words) }.count }

    @Test("a server moved in the config and signed in to again is followed within seconds, said in one line; SIGHUP reads the config again")
    func followsItsConfiguration() async throws {
        let first = try ServerProcess(dataDirectory: TemporaryDirectory("e2e-watch-week-a").url)
        let second = try ServerProcess(dataDirectory: TemporaryDirectory("e2e-watch-week-b").url)
        #expect(try brados(["config", "set", "server", first.url.absoluteString]).status == 0)
        try signIn()
        let conversation = try firstConversation()
        #expect(try brados(["coach", "show", conversation, "--last", "1"]).status == 0)
        let watch = try BuiltProducts.start("brados", ["sync", "--watch"], environment: environment())
        defer { watch.send(SIGKILL); _ = watch.finish() }
        #expect(try await eventually(timeout: .seconds(30)) { try await first.realtimeChannels() == 1 }, "the watch follows the first server")

        // The person moves to the second server and signs in there.
        #expect(try brados(["config", "set", "server", second.url.absoluteString]).status == 0)
        try signIn()
        #expect(try await eventually(timeout: .seconds(30)) { try await second.realtimeChannels() == 1 },
                "the running watch follows the second server: \(watch.stderrSoFar)")
        try await insert("moved-1", into: conversation, second)
        #expect(try await eventually(timeout: .seconds(30)) { try cachedIDs(conversation).contains("moved-1") }, "\(watch.stderrSoFar)")
        let said = watch.stderrSoFar
        #expect(lines(said, containing: "the configuration changed (server)") >= 1, "one line says what changed: \(said)")
        #expect(!said.contains("signed in to") || !said.contains("now uses"), "no line about the old server: \(said)")

        // Another command renews an expired token, rewriting the credentials file: no new
        // sign-in to the watch (said many times a day, it would hide the lines that matter).
        let renewedBefore = lines(watch.stderrSoFar, containing: "the sign-ins changed")
        try await second.expireAccessTokens()
        #expect(try brados(["coach", "conversations"]).status == 0)
        try await Task.sleep(for: .seconds(5))
        #expect(lines(watch.stderrSoFar, containing: "the sign-ins changed") == renewedBefore, "a renewed token is no new sign-in: \(watch.stderrSoFar)")
        #expect(try await second.realtimeChannels() == 1, "still following")

        // SIGHUP under a service manager (stdin is not a terminal): read again, still running.
        watch.send(SIGHUP)
        #expect(try await eventually(timeout: .seconds(15)) { watch.stderrSoFar.contains("the configuration was read again") }, "\(watch.stderrSoFar)")
        try await Task.sleep(for: .seconds(1))
        #expect(watch.isRunning, "SIGHUP does not end a watch a service manager runs")
        watch.send(SIGTERM)
        #expect(watch.finish().status == 143)
    }

    @Test("a server away is one line and one when it answers again; Retry-After is waited out; a revoked session is one line and one notification until a sign-in")
    func saysEachTroubleOnce() async throws {
        let data = TemporaryDirectory("e2e-watch-week-c")
        var server = try ServerProcess(dataDirectory: data.url)
        let port = try #require(server.url.port)
        #expect(try brados(["config", "set", "server", server.url.absoluteString]).status == 0)
        try signIn()
        let conversation = try firstConversation()
        #expect(try brados(["coach", "show", conversation, "--last", "1"]).status == 0)
        // The plan service rate-limits: a minute to wait, which the watch waits out.
        try await server.addFault(#"{"match": "POST /v1/plans/generate", "status": 429, "retryAfter": 60}"#)
        let session = try NotificationSession()
        let watch = try BuiltProducts.start("brados", ["sync", "--watch", "--notify"], environment: environment(session.environment))
        defer { watch.send(SIGKILL); _ = watch.finish() }
        #expect(try await eventually(timeout: .seconds(30)) { try await server.realtimeChannels() == 1 })

        // Away for 8 s (eight of the watch's restarts at 1 s), then back on the same port.
        server.stop()
        try await Task.sleep(for: .seconds(8))
        server = try ServerProcess(dataDirectory: data.url, port: port)
        try await server.addFault(#"{"match": "POST /v1/plans/generate", "status": 429, "retryAfter": 60}"#)
        #expect(try await eventually(timeout: .seconds(40)) { watch.stderrSoFar.contains("answers again") }, "\(watch.stderrSoFar)")
        try await insert("back-1", into: conversation, server)
        #expect(try await eventually(timeout: .seconds(30)) { try cachedIDs(conversation).contains("back-1") })
        var said = watch.stderrSoFar
        #expect(lines(said, containing: "cannot be reached") == 1, "one line when it went: \(said)")
        #expect(lines(said, containing: "answers again") == 1, "one when it came back: \(said)")
        #expect(!said.contains("Ctrl-C"), "no Ctrl-C in a service's log: \(said)")
        let rateLimited = try await server.stats().byRoute.filter { $0.key.contains("plans/generate") }.values.reduce(0, +)
        #expect(rateLimited <= 1, "the plan service asked for a minute; it was asked \(rateLimited) times since it came back")

        // The sessions revoked on the server: one line, one notification, then quiet.
        _ = try await server.sql("DELETE FROM token WHERE session IS NOT NULL")
        try await server.expireAccessTokens()
        try await insert("revoked-1", into: conversation, server)  // its event finds the token gone
        #expect(try await eventually(timeout: .seconds(30)) { watch.stderrSoFar.contains("waits for the sign-in") }, "\(watch.stderrSoFar)")
        try await Task.sleep(for: .seconds(6))
        said = watch.stderrSoFar
        #expect(lines(said, containing: "waits for the sign-in") == 1, "said once: \(said)")
        let alerts = session.calls().filter { $0.summary == "brados: sign in to supabase again" }
        #expect(alerts.count == 1, "one notification: \(session.calls().map(\.summary))")
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], stdin: "demo").status == 0)
        #expect(try await eventually(timeout: .seconds(30)) { watch.stderrSoFar.contains("signed in to supabase again") }, "\(watch.stderrSoFar)")
        #expect(watch.isRunning)
    }

    @Test("cache clear beside a watch waits profile.lock-timeout, no longer, and names the watch and how to go on; --wait waits until it ends")
    func exclusiveBesideTheWatch() async throws {
        let server = try ServerProcess()
        #expect(try brados(["config", "set", "server", server.url.absoluteString]).status == 0)
        try signIn()
        let watch = try BuiltProducts.start("brados", ["sync", "--watch"], environment: environment())
        defer { watch.send(SIGKILL); _ = watch.finish() }
        #expect(try await eventually(timeout: .seconds(30)) { try await server.realtimeChannels() == 1 })
        let started = Date()
        let busy = try BuiltProducts.run("brados", ["cache", "clear"], environment: environment(["BRADOS_PROFILE_LOCK_TIMEOUT": "3s"]))
        let waited = Date().timeIntervalSince(started)
        #expect(busy.status == 11, "\(busy.stderr)")
        #expect(waited < 5, "at most the setting's 3 s (and start-up): \(waited) s")
        #expect(busy.stderr.contains("brados sync --watch (pid \(watch.pid)"), "names it: \(busy.stderr)")
        #expect(busy.stderr.contains("Stop it") && busy.stderr.contains("--wait"), "says how to go on: \(busy.stderr)")
        // --wait: as long as it takes; the watch stopped, the clear goes through.
        let clear = try BuiltProducts.start("brados", ["cache", "clear", "--wait"], environment: environment(["BRADOS_PROFILE_LOCK_TIMEOUT": "1s"]))
        try await Task.sleep(for: .seconds(3))
        #expect(clear.isRunning, "still waiting past profile.lock-timeout")
        watch.send(SIGTERM)
        let cleared = clear.finish(timeout: 30)
        #expect(cleared.status == 0, "\(cleared.stderr)")
    }
}
