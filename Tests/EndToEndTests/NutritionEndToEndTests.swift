import Foundation
import Testing
import TestSupport

/// The plan domain end to end: the built `brados` against a `brados-server` process.
@Suite("End to end: plan", .serialized, .ownThread)
struct NutritionEndToEndTests {
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

    @Test("a queued weight shows estimated targets at once, marked; a refusal rolls them back with its reason; the service's plan replaces them")
    func estimatedTargets() async throws {
        let server = try ServerProcess()
        try signIn(server)
        // A weight the service has: what an estimate scales from.
        #expect(try brados(["plan", "weight", "85"], server).status == 0)
        let served = try document(try brados(["plan", "show", "--json"], server))
        let plan = try #require(served["plan"] as? [String: Any])
        let calories = try #require((plan["targets"] as? [String: Any])?["calorieTarget"] as? Int)
        #expect(served["estimate"] is NSNull)
        let lastWeight = ((served["weights"] as? [String: Any])?["points"] as? [[String: Any]])?.last?["weight"] as? Double ?? 0
        #expect(lastWeight == 85)
        let queuedWeight = 80.0
        #expect(try brados(["--offline", "plan", "weight", "\(Int(queuedWeight))"], server).status == 0)

        let offline = try document(try brados(["--offline", "plan", "show", "--json"], server))
        let estimate = try #require(offline["estimate"] as? [String: Any], "\(offline)")
        #expect((estimate["estimated"] as? [String])?.contains("calorieTarget") == true)
        let estimated = try #require((estimate["targets"] as? [String: Any])?["calorieTarget"] as? Int)
        #expect(estimated == Int((Double(calories) * queuedWeight / lastWeight).rounded()), "\(estimated) from \(calories)")
        #expect(((offline["plan"] as? [String: Any])?["targets"] as? [String: Any])?["calorieTarget"] as? Int == calories, "the service's plan is untouched")
        let text = try brados(["--offline", "plan", "show", "--art", "none"], server)
        #expect(text.stdout.contains("≈ ") && text.stdout.contains("estimated for the queued weight"), "\(text.stdout)")
        let targets = try document(try brados(["--offline", "plan", "targets", "--json"], server))
        #expect(targets["estimate"] is [String: Any])

        // Refused: the change leaves the queue with its reason, and the estimate with it.
        try await server.addFault(#"{"match":"PUT /auth/profile","status":422,"count":1,"body":"{\"error\":{\"message\":\"weight out of range\"}}"}"#)
        let refused = try brados(["plan", "sync"], server)
        #expect(refused.stdout.contains("weight out of range") || refused.stderr.contains("weight out of range"), "\(refused.stdout)\(refused.stderr)")
        #expect(try document(try brados(["--offline", "plan", "show", "--json"], server))["estimate"] is NSNull)

        // Sent and answered: the service's plan replaces the estimate.
        #expect(try brados(["--offline", "plan", "weight", "\(Int(queuedWeight))"], server).status == 0)
        #expect(try brados(["plan", "sync"], server).status == 0)
        let answered = try document(try brados(["--offline", "plan", "show", "--json"], server))
        #expect(answered["estimate"] is NSNull, "\(answered)")
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
        #expect(second.stdout.contains("2252 kcal") && second.stdout.contains("TDEE") && second.stdout.contains("from cache"))
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
        async let first = BuiltProducts.run("brados", ["plan", "sync", "--json"], environment: environment)
        async let second = BuiltProducts.run("brados", ["plan", "sync", "--json"], environment: environment)
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
        #expect(replace.status == 14, "\(replace.stderr)")
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
        #expect(try brados(["--profile", "new", "--offline", "plan", "weight", "91", "--yes"], server).status == 0, "far from the imported 70 kg: said to be meant")
        #expect(try brados(["--profile", "new", "cache", "import", archive, "--replace", "--discard-pending"], server).status == 0)
        #expect(try pending(server, profile: "new").map { $0["weightKg"] as? Double } == [70])
    }

    @Test("a change queued by another account (an archive of demo's imported for alice) is never sent to alice's account unless that account is named")
    func anotherAccountsChangeIsHeld() async throws {
        let server = try ServerProcess()
        func login(_ profile: String, _ user: String) throws {
            let result = try BuiltProducts.run("brados", ["--profile", profile, "auth", "login", "--user", user, "--password-stdin"], environment: [
                "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
            ], stdin: user)
            #expect(result.status == 0, "\(result.stderr)")
        }
        try login("demo", "demo")
        #expect(try brados(["--profile", "demo", "--offline", "plan", "weight", "84.9"], server).status == 0)
        let archive = home.url.appendingPathComponent("demo.tar.zst").path
        #expect(try brados(["--profile", "demo", "cache", "export", "-o", archive], server).status == 0)
        #expect(try brados(["cache", "import", archive, "--as", "other"], server).status == 0)
        try login("other", "alice")
        let queued = try pending(server, profile: "other")
        let demoAccount = try #require(queued.first?["importedAccount"] as? String)
        // The copy is labelled where it is shown: auth status, today, search.
        let status = try brados(["--profile", "other", "auth", "status"], server)
        #expect(status.stdout.contains("Another account's data, imported") && status.stdout.contains("imported from profile demo (account \(demoAccount))"),
                "\(status.stdout)")
        #expect(try brados(["--profile", "other", "auth", "status", "--json"], server).stdout.contains("importedFromOtherAccounts"))
        for command in [["today"], ["search", "protein"]] {
            let shown = try brados(["--profile", "other", "--offline"] + command, server)
            #expect(shown.stderr.contains("holds another account's data"), "\(command): \(shown.stderr)")
        }
        #expect(!(try brados(["--profile", "demo", "--offline", "today"], server)).stderr.contains("another account's data"))
        let listed = try brados(["--profile", "other", "--offline", "plan", "pending"], server)
        #expect(listed.stdout.contains("account \(demoAccount)") && listed.stderr.contains("--include-imported-from \(demoAccount)"),
                "\(listed.stdout) \(listed.stderr)")

        try await server.resetStats()
        let refused = try brados(["--profile", "other", "plan", "sync", "--include-imported"], server)
        #expect(refused.status == 14, "\(refused.stderr)")
        #expect(refused.stderr.contains("made by account \(demoAccount)") && refused.stderr.contains("nothing was sent")
                && refused.stderr.contains("--include-imported-from \(demoAccount)"), "\(refused.stderr)")
        let plain = try brados(["--profile", "other", "plan", "sync"], server)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try pending(server, profile: "other").count == 1)
        let sent = try await server.stats().byRoute.filter { $0.key.hasPrefix("PUT ") && $0.key.contains("profile") }.values.reduce(0, +)
        #expect(sent == 0, "demo's weight never reached alice's account")

        let named = try brados(["--profile", "other", "plan", "sync", "--include-imported-from", demoAccount], server)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(try pending(server, profile: "other").isEmpty)
    }
}
