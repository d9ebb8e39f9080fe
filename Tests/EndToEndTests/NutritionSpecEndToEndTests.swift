import Foundation
import Testing
import TestSupport

/// Spec 004 end to end (issue 43): plan inputs, kept plans, logs without body values, the
/// rate limit: the built `brados` against a `brados-server` process.
@Suite("End to end: plan, spec 004", .serialized, .ownThread)
struct NutritionSpecEndToEndTests {
    let home = TemporaryDirectory("e2e-plan-spec")

    func environment(_ server: ServerProcess, _ extra: [String: String] = [:]) -> [String: String] {
        ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString].merging(extra) { $1 }
    }

    func brados(_ arguments: [String], _ server: ServerProcess, extra: [String: String] = [:]) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: environment(server, extra))
    }

    func signIn(_ server: ServerProcess, profile: String = "default") throws {
        let result = try BuiltProducts.run("brados", ["--profile", profile, "auth", "login", "--user", "demo", "--password-stdin"],
                                           environment: environment(server), stdin: "demo")
        #expect(result.status == 0, "\(result.stderr)")
    }

    func document(_ result: BuiltProducts.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\n\(result.stderr)")
    }

    /// The demo's plan inputs as the server holds them.
    func profile(_ server: ServerProcess) async throws -> [Any] {
        try #require(try await server.sql("SELECT targetWeight, goal, activityLevel FROM plan_profile WHERE userId = (SELECT id FROM user WHERE username = 'demo')").first)
    }

    @Test("plan set: queued offline and shown pending, sent with a forced recompute online, rolled back when refused")
    func setInputs() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["plan"], server).status == 0)

        let queued = try brados(["--offline", "plan", "set", "goal", "maintain"], server)
        #expect(queued.status == 0, "\(queued.stderr)")
        #expect(queued.stdout.contains("Goal maintain (pending)") && queued.stdout.contains("Queued: offline"))
        let shown = try brados(["--offline", "plan", "show"], server)
        #expect(shown.stdout.contains("Pending: goal maintain"), "\(shown.stdout)")
        #expect((try document(try brados(["--offline", "plan", "--json"], server))["pending"] as? [String: Any])?["goal"] as? String == "maintain")

        try await server.resetStats()
        let sent = try brados(["plan", "set", "target-weight", "80"], server)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("Sent goal maintain.") && sent.stdout.contains("Sent target weight 80 kg."), "\(sent.stdout)")
        #expect(sent.stdout.contains("Your plan changed"), "maintain: calories rise to the TDEE")
        #expect(try await server.stats().byRoute["POST /v1/plans/generate"] == 1)
        let held = try await profile(server)
        #expect(held[0] as? Double == 80 && held[1] as? String == "maintain")
        #expect(try document(try brados(["plan", "--json"], server))["pending"] is NSNull, "no change waits: null, never a missing key")

        // The service refuses a value: it is rolled back, and the command says so (exit 7).
        try await server.addFault(#"{"match":"PUT /auth/profile","status":400,"count":1,"body":"{\"error\":{\"message\":\"activityLevel cannot change this week.\"}}"}"#)
        let refused = try brados(["plan", "set", "activity", "very_active"], server)
        #expect(refused.status == 7, "\(refused.stderr)")
        #expect(refused.stderr.contains("rolled back activity very_active") && refused.stderr.contains("cannot change this week"), "\(refused.stderr)")
        #expect(try document(try brados(["plan", "pending", "--json"], server))["pending"] as? [Any] != nil)
        #expect((try document(try brados(["plan", "pending", "--json"], server))["pending"] as? [Any])?.isEmpty == true)
        #expect(try await profile(server)[2] as? String == "moderately_active")
        #expect(!(try brados(["--offline", "plan", "show"], server).stdout.contains("Pending")))

        // Validated before anything is queued; the values are the service's, and the shells complete them.
        #expect(try brados(["plan", "set", "target-weight", "12"], server).status == 64)
        let unknown = try brados(["plan", "set", "goal", "bulk"], server)
        #expect(unknown.status == 64 && unknown.stderr.contains("lose_weight") && unknown.stderr.contains("gain_muscle"), "\(unknown.stderr)")
        let script = try brados(["--generate-completion-script", "zsh"], server)
        #expect(script.stdout.contains("_goal=('lose_weight' 'maintain' 'gain_muscle')"))
        #expect(script.stdout.contains("('sedentary' 'lightly_active' 'moderately_active' 'very_active' 'extremely_active')"))
    }

    @Test("every plan received is kept: listed, compared (--json too), carried by cache export/import, erased by logout")
    func keptAndCompared() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["plan"], server).status == 0)
        #expect(try brados(["plan"], server).status == 0, "the same plan again: not kept twice")
        #expect(try brados(["plan", "weight", "80"], server).status == 0)
        let listed = try document(try brados(["plan", "history", "--plans", "--json"], server))
        let plans = try #require(listed["plans"] as? [[String: Any]])
        #expect(plans.count == 2)
        let ids = plans.compactMap { ($0["plan"] as? [String: Any]).flatMap { ($0["plan"] as? [String: Any])?["id"] as? Int } }
        #expect(ids == [1, 2])
        #expect(try brados(["plan", "history", "--plans"], server).stdout.contains("2 plans kept"))

        let diff = try document(try brados(["plan", "diff", "--json"], server))
        #expect((diff["calorieTarget"] as? [String: Any])?["from"] as? Int == 2252)
        #expect((diff["proteinTarget"] as? [String: Any])?["to"] as? Int == 160)
        let human = try brados(["plan", "diff", "1", "2"], server)
        #expect(human.status == 0 && human.stdout.contains("Plan 1 → plan 2") && human.stdout.contains("172 → 160 g"), "\(human.stdout)")
        let missing = try brados(["plan", "diff", "9"], server)
        #expect(missing.status == 3 && missing.stderr.contains("No plan 9 is kept here") && missing.stderr.contains("history --plans"))

        let archive = home.url.appendingPathComponent("plans.tar.zst").path
        #expect(try brados(["cache", "export", "-o", archive], server).status == 0)
        try signIn(server, profile: "other")
        #expect(try brados(["--profile", "other", "cache", "import", archive], server).status == 0)
        let imported = try document(try brados(["--profile", "other", "plan", "history", "--plans", "--json"], server))
        #expect((imported["plans"] as? [Any])?.count == 2)

        #expect(try brados(["auth", "logout"], server).status == 0)
        let erased = try document(try brados(["--offline", "plan", "history", "--plans", "--json"], server))
        #expect((erased["plans"] as? [Any])?.isEmpty == true)
    }

    @Test("kept plans keep ids of the profile's own: after switching servers (whose plans are numbered from 1 again) plan diff names each")
    func keptIDsAcrossServers() async throws {
        let first = try ServerProcess(), second = try ServerProcess()
        try signIn(first)
        #expect(try brados(["plan"], first).status == 0)
        #expect(try brados(["plan", "weight", "80"], first).status == 0)
        // The same profile, another server: its first plan is its plan 1 too.
        #expect(try brados(["config", "set", "server", second.url.absoluteString], first).status == 0)
        let login = try BuiltProducts.run("brados", ["auth", "login", "--user", "demo", "--password-stdin"],
                                          environment: environment(first).filter { $0.key != "BRADOS_SERVER" }, stdin: "demo")
        #expect(login.status == 0, "\(login.stderr)")
        let onSecond = environment(first).filter { $0.key != "BRADOS_SERVER" }
        #expect(try BuiltProducts.run("brados", ["plan", "weight", "79"], environment: onSecond).status == 0)
        let listed = try document(try BuiltProducts.run("brados", ["plan", "history", "--plans", "--json"], environment: onSecond))
        let plans = try #require(listed["plans"] as? [[String: Any]])
        #expect(plans.compactMap { $0["id"] as? Int } == [1, 2, 3], "\(plans.map { $0["id"] ?? "-" })")
        let serverIDs = plans.compactMap { ($0["plan"] as? [String: Any]).flatMap { ($0["plan"] as? [String: Any])?["id"] as? Int } }
        #expect(serverIDs.first == 1 && serverIDs.last == 1, "both servers' first plan is their plan 1: \(serverIDs)")
        let human = try BuiltProducts.run("brados", ["plan", "diff", "1", "3"], environment: onSecond)
        #expect(human.status == 0 && human.stdout.contains("Plan 1 → plan 3"), "\(human.stdout)\(human.stderr)")
        let table = try BuiltProducts.run("brados", ["plan", "history", "--plans"], environment: onSecond).stdout
        #expect(table.contains("3 plans kept"), "\(table)")
    }

    @Test("spec §6.5: every plan command at the highest verbosity logs no weight, target or other value sent")
    func noBodyValuesInLogs() async throws {
        let server = try ServerProcess()
        try signIn(server)
        let trace = ["BRADOS_LOG": "trace"]
        var stderr = ""
        func run(_ arguments: [String]) throws {
            let result = try brados(arguments, server, extra: trace)
            stderr += result.stderr
            #expect([0, 7].contains(result.status), "\(arguments): \(result.stderr)")
        }
        for arguments in [["plan"], ["plan", "targets"], ["plan", "why"], ["plan", "recompute"], ["plan", "refresh"],
                          ["plan", "weight", "83.7"], ["plan", "set", "target-weight", "77.3"], ["plan", "set", "goal", "gain_muscle"],
                          ["plan", "set", "activity", "very_active"], ["--offline", "plan", "weight", "82.9"],
                          ["--offline", "plan", "set", "target-weight", "76.1"], ["plan", "pending"], ["plan", "history"],
                          ["plan", "sync"], ["plan", "history", "--plans"], ["plan", "diff"], ["plan", "--json"], ["today"]] {
            try run(arguments)
        }
        // A refusal whose message names the value: the user is told, no log line carries it.
        try await server.addFault(#"{"match":"PUT /auth/profile","status":400,"count":1,"body":"{\"error\":{\"message\":\"targetWeight 71.9 is not accepted.\"}}"}"#)
        try run(["plan", "set", "target-weight", "71.9"])
        #expect(stderr.contains("targetWeight 71.9 is not accepted"), "the refusal is the command's output")
        let logLines = stderr.split(separator: "\n").filter { $0.range(of: #"^brados: (trace|debug|info|notice|warning|error|critical): "#, options: .regularExpression) != nil }
        #expect(logLines.contains { $0.contains("queued a weight change") }, "the trace level is on: \(logLines.prefix(5))")
        for value in ["83.7", "77.3", "82.9", "76.1", "71.9", "gain_muscle", "very_active"] {
            #expect(!logLines.contains { $0.contains(value) }, "a log line carries \(value): \(logLines.filter { $0.contains(value) })")
        }
    }

    @Test("the server limits plan generation per client; brados waits out a short Retry-After and reports a long one (exit 9)")
    func rateLimit() async throws {
        // Two a 3-second window: a burst of three ends in success after brados waits.
        let server = try ServerProcess(extraArguments: ["--plan-rate-limit", "2", "--plan-rate-window", "3"])
        try signIn(server)
        try await server.resetStats()
        #expect(try brados(["plan", "recompute"], server).status == 0)
        #expect(try brados(["plan", "recompute"], server).status == 0)
        let third = try brados(["-v", "plan", "recompute"], server)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stderr.contains("retrying POST /v1/plans/generate (1/3)"), "\(third.stderr)")
        #expect(third.stdout.contains("kcal"))
        #expect(try await server.stats().byRoute["POST /v1/plans/generate"] == 4, "three plans and one 429")

        // A window of 10 minutes: a wait longer than brados's 10 s is reported with its time.
        let slow = try ServerProcess(extraArguments: ["--plan-rate-limit", "1", "--plan-rate-window", "600"])
        try signIn(slow)
        #expect(try brados(["plan", "recompute"], slow).status == 0)
        let limited = try brados(["plan", "recompute"], slow)
        #expect(limited.status == 9, "\(limited.stderr)")
        #expect(limited.stderr.contains("rate limiting") && limited.stderr.contains("10 min"), "\(limited.stderr)")
        // The cached plan answers it for a read.
        #expect(try brados(["plan", "show"], slow).status == 0)
    }
}
