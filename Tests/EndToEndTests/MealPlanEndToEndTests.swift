import Foundation
import Testing
import TestSupport

/// The meal plan domain end to end: the built `brados` against a `brados-server` process.
@Suite("End to end: mealplan", .serialized, .ownThread)
struct MealPlanEndToEndTests {
    let home = TemporaryDirectory("e2e-mealplan")

    func brados(_ arguments: [String], _ server: ServerProcess, extra: [String: String] = [:]) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ].merging(extra) { _, new in new })
    }

    func signIn(_ server: ServerProcess) throws {
        let login = try BuiltProducts.run("brados", ["auth", "login", "--user", "demo", "--password-stdin"], environment: [
            "BRADOS_HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ], stdin: "demo")
        #expect(login.status == 0, "\(login.stderr)")
    }

    var cacheFile: URL { home.url.appendingPathComponent("cache/users/default/mealplan/latest-session.json") }

    func mealplanRequests(_ server: ServerProcess) async throws -> Int {
        try await server.stats().byRoute.filter { $0.key.contains("/api/mealplans") }.values.reduce(0, +)
    }

    @Test("new → critique → finalize → show twice: the second show makes zero requests; works with the server gone")
    func lifecycle() async throws {
        let server = try ServerProcess()
        try signIn(server)

        let draft = try brados(["mealplan", "new", "--json"], server)
        #expect(draft.status == 0, "\(draft.stderr)")
        let draftDoc = try JSONSerialization.jsonObject(with: Data(draft.stdout.utf8)) as? [String: Any]
        let draftSession = try #require(draftDoc?["session"] as? [String: Any])
        let id = try #require(draftSession["id"] as? String)
        #expect(draftSession["isFinalized"] as? Bool == false)
        #expect(!FileManager.default.fileExists(atPath: cacheFile.path), "a draft must not be cached")

        let critique = try brados(["mealplan", "critique", "no fish"], server)
        #expect(critique.status == 0, "\(critique.stderr)")
        for fish in ["salmon", "Salmon", "Tuna", "Cod", "Shrimp", "Prawn"] { #expect(!critique.stdout.contains(fish)) }
        #expect(critique.stdout.contains("\"no fish\""))

        let finalize = try brados(["mealplan", "finalize"], server)
        #expect(finalize.status == 0, "\(finalize.stderr)")
        #expect(FileManager.default.fileExists(atPath: cacheFile.path))
        let mode = try FileManager.default.attributesOfItem(atPath: cacheFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let first = try brados(["mealplan", "show"], server)
        #expect(first.status == 0)
        #expect(first.stdout.contains("Meal plan \(id)"))
        #expect(first.stdout.contains("from cache"))
        try await server.resetStats()
        let second = try brados(["mealplan", "show", "--json"], server)
        #expect(second.status == 0)
        #expect(try await mealplanRequests(server) == 0)
        #expect(try await server.stats().total == 0)
        let doc = try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any]
        #expect((doc?["source"] as? [String: Any])?["kind"] as? String == "cache")
        #expect((doc?["session"] as? [String: Any])?["id"] as? String == id)

        server.stop()
        let offline = try brados(["mealplan", "show"], server)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stdout.contains("Meal plan \(id)"))
        let today = try brados(["mealplan", "today"], server)
        #expect(today.status == 0)
        #expect(today.stdout.contains("Today, "))
    }

    @Test("a corrupt cache file is treated as missing: show refetches and repairs it")
    func corruptCache() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["mealplan", "show"], server).status == 0) // caches the seeded finalized plan
        let good = try Data(contentsOf: cacheFile)
        try Data(good.prefix(good.count / 2)).write(to: cacheFile)
        try await server.resetStats()

        let repaired = try brados(["mealplan", "show", "--verbose"], server)
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(!repaired.stderr.contains("Fatal"))
        #expect(repaired.stderr.contains("cache corrupt"))
        #expect(repaired.stdout.contains("from the network"))
        #expect(try await mealplanRequests(server) == 1)
        let fixed = try JSONSerialization.jsonObject(with: Data(contentsOf: cacheFile)) as? [String: Any]
        #expect(fixed?["formatVersion"] as? Int == 1)
    }

    @Test("--offline with no cache: the needs-network error, exit 5, no request; status and path work offline")
    func offlineNoCache() async throws {
        let server = try ServerProcess()
        try signIn(server)
        try await server.resetStats()
        let show = try brados(["--offline", "mealplan", "show"], server)
        #expect(show.status == 5)
        #expect(show.stderr.contains("offline"))
        let refresh = try brados(["mealplan", "refresh", "--offline"], server)
        #expect(refresh.status == 5)
        let status = try brados(["mealplan", "status", "--json", "--offline"], server)
        #expect(status.status == 0)
        #expect(status.stdout.contains("\"cached\" : false"))
        let path = try brados(["mealplan", "path", "--offline"], server)
        #expect(path.stdout == cacheFile.path + "\n")
        #expect(try await server.stats().total == 0)
    }

    @Test("refresh refetches; critique without a draft and an empty critique fail clearly")
    func refreshAndErrors() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["mealplan", "show"], server).status == 0)
        try await server.resetStats()
        let refresh = try brados(["mealplan", "refresh"], server)
        #expect(refresh.status == 0)
        #expect(refresh.stdout.contains("from the network"))
        #expect(try await server.stats().byRoute["GET /api/mealplans/latest"] == 1)
        let noDraft = try brados(["mealplan", "critique", "no fish"], server)
        #expect(noDraft.status == 3)
        #expect(noDraft.stderr.contains("brados mealplan new"))
        #expect(try brados(["mealplan", "critique", "  "], server).status == 64)
        // A server failure during refresh keeps the cached plan: it still shows offline.
        try await server.addFault(#"{"match":"GET /api/mealplans","status":500}"#)
        let failed = try brados(["mealplan", "refresh"], server)
        #expect(failed.status == 6)
        #expect(failed.stderr.contains("500"))
        let kept = try brados(["mealplan", "show", "--offline"], server)
        #expect(kept.status == 0)
        #expect(kept.stdout.contains("from cache"))
    }
}
