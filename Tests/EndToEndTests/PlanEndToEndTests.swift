import Foundation
import Testing
import TestSupport

/// The plan domain end to end: the built `brados` against a `brados-server` process.
@Suite("End to end: plan", .serialized)
struct PlanEndToEndTests {
    let home = TemporaryDirectory("e2e-plan")

    func brados(_ arguments: [String], _ server: ServerProcess, extra: [String: String] = [:]) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ].merging(extra) { $1 })
    }

    func signIn(_ server: ServerProcess) throws {
        let result = try BuiltProducts.run("brados", ["auth", "login", "--user", "demo", "--password-stdin"], environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ], stdin: "demo")
        #expect(result.status == 0, "\(result.stderr)")
    }

    func document(_ result: BuiltProducts.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\n\(result.stderr)")
    }

    @Test("the plan is fetched once, then served from the cache with no request; a failed refresh keeps it")
    func cachedWithinTTL() async throws {
        let server = try ServerProcess()
        try signIn(server)
        try await server.resetStats()
        let first = try brados(["plan", "--json"], server)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(((try document(first)["plan"] as? [String: Any])?["targets"] as? [String: Any])?["calorieTarget"] as? Int == 2252)
        let second = try brados(["plan", "targets"], server)
        #expect(second.status == 0)
        #expect(second.stdout.contains("2,252 kcal") && second.stdout.contains("TDEE") && second.stdout.contains("from cache"))
        let why = try brados(["plan", "why"], server)
        #expect(why.stdout.contains("Mifflin–St Jeor"))
        #expect(try await server.stats().byRoute["POST /v1/plans/generate"] == 1)

        // 503 is the service's maintenance: said, and never retried (the spec's maintenanceMode).
        try await server.addFault(#"{"match":"POST /v1/plans/generate","status":503,"retryAfter":0}"#)
        try await server.resetStats()
        let refresh = try brados(["plan", "refresh"], server)
        #expect(refresh.status == 6, "\(refresh.stderr)")
        #expect(refresh.stderr.contains("maintenance"))
        #expect(try await server.stats().byRoute["POST /v1/plans/generate"] == 1, "asked once")
        try await server.clearFaults()
        let kept = try brados(["--offline", "plan", "--json"], server)
        #expect(kept.status == 0)
        #expect((try document(kept)["source"] as? [String: Any])?["kind"] as? String == "cache")
    }

    @Test("weight: online it updates and recomputes, announcing a significant change; offline it is queued, then synced once")
    func weightAndQueue() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["plan"], server).status == 0)
        let online = try brados(["plan", "weight", "80"], server)
        #expect(online.status == 0, "\(online.stderr)")
        #expect(online.stdout.contains("Sent weight 80 kg"))
        #expect(online.stdout.contains("Your plan changed") && online.stdout.contains("protein 172 → 160 g"))

        let queued = try brados(["--offline", "plan", "weight", "79.5"], server)
        #expect(queued.status == 0)
        #expect(queued.stdout.contains("Queued weight 79.5 kg"))
        _ = try brados(["--offline", "plan", "weight", "79"], server)
        let pending = try document(try brados(["plan", "pending", "--json"], server))
        #expect((pending["pending"] as? [[String: Any]])?.compactMap { $0["weightKg"] as? Double } == [79.5, 79])

        // Two syncs at once: each change is sent exactly once, in order.
        try await server.resetStats()
        let environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString]
        async let first = Task.detached { try BuiltProducts.run("brados", ["plan", "sync", "--json"], environment: environment) }.value
        async let second = Task.detached { try BuiltProducts.run("brados", ["plan", "sync", "--json"], environment: environment) }.value
        let results = try await [first, second]
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        #expect(try await server.stats().byRoute["PUT /auth/profile"] == 2)
        let empty = try brados(["plan", "pending"], server)
        #expect(empty.stdout.contains("Nothing queued"))

        let invalid = try brados(["plan", "weight", "12"], server)
        #expect(invalid.status == 64)
    }

    @Test("onboarding incomplete is a clear error with its exit code")
    func onboarding() async throws {
        let server = try ServerProcess()
        let result = try BuiltProducts.run("brados", ["auth", "login", "--user", "alice", "--password-stdin"], environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ], stdin: "alice")
        #expect(result.status == 0)
        let plan = try brados(["plan"], server)
        #expect(plan.status == 7)
        #expect(plan.stderr.contains("Onboarding is not complete") && plan.stderr.contains("Complete onboarding"))
    }

    func pending(_ server: ServerProcess, profile: String) throws -> [[String: Any]] {
        let result = try brados(["--profile", profile, "--offline", "plan", "pending", "--json"], server)
        return try #require(try document(result)["pending"] as? [[String: Any]])
    }

    @Test("an imported queue arrives paused; brados sync never sends it; --replace never drops local changes silently")
    func importedQueueIsPaused() async throws {
        let server = try ServerProcess()
        for profile in ["old", "new"] {
            let login = try BuiltProducts.run("brados", ["--profile", profile, "auth", "login", "--user", "demo", "--password-stdin"], environment: [
                "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
            ], stdin: "demo")
            #expect(login.status == 0, "\(login.stderr)")
        }
        // An old backup with a queued weight.
        #expect(try brados(["--profile", "old", "--offline", "plan", "weight", "70"], server).status == 0)
        let archive = home.url.appendingPathComponent("old.tar.zst").path
        #expect(try brados(["--profile", "old", "cache", "export", "-o", archive], server).status == 0)
        // The new profile has its own unsent change.
        #expect(try brados(["--profile", "new", "--offline", "plan", "weight", "90"], server).status == 0)

        let replace = try brados(["--profile", "new", "cache", "import", archive, "--replace"], server)
        #expect(replace.status == 7, "\(replace.stderr)")
        #expect(replace.stderr.contains("queued plan change") && replace.stderr.contains("--discard-pending"))
        #expect(try pending(server, profile: "new").count == 1)

        let merge = try brados(["--profile", "new", "cache", "import", archive, "--merge"], server)
        #expect(merge.status == 0, "\(merge.stderr)")
        let queue = try pending(server, profile: "new")
        #expect(queue.count == 2)
        #expect(queue.filter { $0["importedAt"] != nil }.count == 1)
        #expect((queue.first { $0["importedAt"] != nil }?["importedFrom"] as? String)?.contains("profile old") == true)
        let listed = try brados(["--profile", "new", "--offline", "plan", "pending"], server)
        #expect(listed.stdout.contains("imported from profile old") && listed.stderr.contains("--include-imported"))

        // The timer's `brados sync` and a plain `plan sync` send only the local change.
        try await server.resetStats()
        let sync = try brados(["--profile", "new", "sync", "--domains", "plan"], server)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try pending(server, profile: "new").map { $0["weightKg"] as? Double } == [70])
        let plain = try brados(["--profile", "new", "plan", "sync"], server)
        #expect(plain.status == 0 && plain.stderr.contains("paused"))
        #expect(try pending(server, profile: "new").count == 1)
        let updates = try await server.stats().byRoute.filter { $0.key.hasPrefix("PUT ") && $0.key.contains("profile") }.values.reduce(0, +)
        #expect(updates == 1, "only the local change was sent")
        // Only when asked.
        let explicit = try brados(["--profile", "new", "plan", "sync", "--include-imported"], server)
        #expect(explicit.status == 0, "\(explicit.stderr)")
        #expect(try pending(server, profile: "new").isEmpty)

        // --discard-pending is the explicit way to drop local changes.
        #expect(try brados(["--profile", "new", "--offline", "plan", "weight", "91"], server).status == 0)
        #expect(try brados(["--profile", "new", "cache", "import", archive, "--replace", "--discard-pending"], server).status == 0)
        #expect(try pending(server, profile: "new").map { $0["weightKg"] as? Double } == [70])
    }
}
