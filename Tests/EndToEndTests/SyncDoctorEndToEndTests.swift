import Foundation
import Testing
import TestSupport

/// `brados sync` (quiet background refresh) and `brados doctor` (what to fix) end to end.
@Suite("End to end: sync and doctor", .serialized)
struct SyncDoctorEndToEndTests {
    let home = TemporaryDirectory("e2e-sync")

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ], stdin: stdin)
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
