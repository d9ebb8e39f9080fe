import Foundation
import Testing
import TestSupport

/// `brados sync` (quiet background refresh) and `brados doctor` (what to fix) end to end.
@Suite("End to end: sync and doctor", .serialized, .ownThread)
struct SyncDoctorEndToEndTests {
    let home = TemporaryDirectory("e2e-sync")

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil, extra: [String: String] = [:]) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ].merging(extra) { $1 }, stdin: stdin)
    }

    @Test("sync refreshes every domain quietly, sends queued plan changes, and fails loudly when the server is gone")
    func sync() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["--offline", "plan", "weight", "82"], server).status == 0)
        try await server.resetStats()
        let quiet = try brados(["sync"], server)
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        let stats = try await server.stats().byRoute
        #expect(stats["GET /api/visits"] == 1 && stats["PUT /auth/profile"] == 1 && stats["GET /rest/v1/conversations"] == 1)
        #expect(stats["GET /api/mealplans/latest"] == nil) // the finalized meal plan is left alone
        #expect((stats["GET /photo/{colon}/transcode"] ?? 0) > 0) // the first screen's artwork
        #expect(try brados(["plan", "pending"], server).stdout.contains("Nothing queued"))
        let json = try brados(["sync", "--json", "--domains", "visits,coach"], server)
        let outcomes = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(outcomes.map { $0["status"] as? String } == ["ok", "ok"])
        server.stop()
        let failing = try brados(["sync", "--domains", "visits"], server)
        #expect(failing.status == 5 && failing.stderr.contains("sync visits"))
    }

    @Test("a service never signed in to is skipped, quietly (said by --verbose and --json); a revoked session still fails with 4")
    func syncSkipsServicesNeverSignedIn() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let quiet = try brados(["sync"], server)
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stdout)\(quiet.stderr)")
        let json = try brados(["sync", "--json"], server)
        let outcomes = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let coach = try #require(outcomes.first { $0["domain"] as? String == "coach" })
        #expect(coach["status"] as? String == "skipped" && (coach["summary"] as? String ?? "").contains("brados auth login --service supabase"), "\(coach)")
        #expect(outcomes.filter { $0["domain"] as? String != "coach" }.allSatisfy { $0["status"] as? String != "failed" }, "\(outcomes)")
        let verbose = try brados(["sync", "--verbose"], server)
        #expect(verbose.status == 0 && verbose.stdout.contains("skipped") && verbose.stdout.contains("not signed in"), "\(verbose.stdout)")

        // Signed in, then the session revoked on the server: that is a failure, exit 4.
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        _ = try await server.sql("DELETE FROM token WHERE session IS NOT NULL")
        let revoked = try brados(["sync", "--domains", "coach"], server)
        #expect(revoked.status == 4, "\(revoked.stderr)")
        #expect(revoked.stderr.contains("sync coach"), "\(revoked.stderr)")
    }

    @Test("sync keeps every conversation's messages for reading offline, newest first, within coach.sync-budget; `opened` keeps only those opened")
    func syncKeepsMessagesForOffline() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        // `opened`: as before, a conversation never opened has no messages offline.
        let opened = try brados(["sync", "--domains", "coach"], server, extra: ["BRADOS_COACH_SYNC_MESSAGES": "opened"])
        #expect(opened.status == 0, "\(opened.stderr)")
        let listed = try brados(["coach", "conversations", "--json", "--offline"], server)
        let conversations = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])["conversations"] as? [[String: Any]] ?? []
        let ids = conversations.compactMap { $0["id"] as? String }
        #expect(ids.count >= 3)
        #expect(try brados(["--offline", "coach", "show", ids[ids.count - 1]], server).status != 0)

        // The default: every conversation's, so each reads offline, the oldest too.
        let synced = try brados(["sync", "--domains", "coach", "--json"], server)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains("kept for offline reading"), "\(synced.stdout)")
        for id in ids {
            let shown = try brados(["--offline", "coach", "show", id, "--json"], server)
            #expect(shown.status == 0, "\(id): \(shown.stderr)")
        }
        // Nothing changed: the next sync asks for no messages.
        try await server.resetStats()
        #expect(try brados(["sync", "--domains", "coach"], server).status == 0)
        #expect(try await server.stats().byRoute["GET /rest/v1/messages"] == nil)

        // A budget smaller than what is held: the older conversations are left out, and said.
        let fresh = TemporaryDirectory("e2e-sync-budget")
        let environment = ["BRADOS_HOME": fresh.url.path, "HOME": fresh.url.path, "BRADOS_SERVER": server.url.absoluteString, "BRADOS_COACH_SYNC_BUDGET": "1KB"]
        #expect(try BuiltProducts.run("brados", ["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], environment: environment, stdin: "demo").status == 0)
        let small = try BuiltProducts.run("brados", ["sync", "--domains", "coach", "--json"], environment: environment)
        #expect(small.status == 0, "\(small.stderr)")
        #expect(small.stdout.contains("oldest left out (over the 1.0 KB coach.sync-budget)"), "\(small.stdout)")
        // The newest conversation's messages were kept first.
        #expect(try BuiltProducts.run("brados", ["--offline", "coach", "show", ids[0]], environment: environment).status == 0)
    }

    @Test("doctor checks servers, sign-in, folder permissions and libarchive, and says what to fix")
    func doctor() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let healthy = try brados(["doctor", "--json"], server)
        let checks = try #require(try JSONSerialization.jsonObject(with: Data(healthy.stdout.utf8)) as? [[String: Any]])
        #expect(checks.first { $0["name"] as? String == "server api" }?["status"] as? String == "ok")
        #expect(checks.first { $0["name"] as? String == "sign-in api" }?["status"] as? String == "ok")
        #expect(checks.first { $0["name"] as? String == "sign-in supabase" }?["status"] as? String == "warn")
        #expect((checks.first { $0["name"] as? String == "libarchive" }?["detail"] as? String)?.contains("zstd") == true)
        #expect(healthy.status == 0)
        chmod(home.url.appendingPathComponent("config").path, 0o755)
        let open = try brados(["doctor"], server)
        #expect(open.status == 1)
        #expect(open.stdout.contains("FAIL") && open.stdout.contains("chmod 700"))
    }
}
