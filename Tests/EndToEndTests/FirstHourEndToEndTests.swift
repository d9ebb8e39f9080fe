import Foundation
import Testing
import TestSupport

/// What a person meets in their first hour with brados (issue 53): errors as the exit-code
/// table says, a password asked for as gh and docker ask, a mistyped profile or key named,
/// dates as typed, a live feed's gap in one sentence. The built `brados` against a real
/// `brados-server` process, and in a pseudo-terminal where it is about the terminal.
@Suite("End to end: the first hour", .serialized, .ownThread)
struct FirstHourEndToEndTests {
    let home = TemporaryDirectory("e2e-first-hour")

    func environment(_ server: ServerProcess?, _ extra: [String: String] = [:]) -> [String: String] {
        var environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_CREDENTIALS_STORE": "file"]
        if let server { environment["BRADOS_SERVER"] = server.url.absoluteString }
        return environment.merging(extra) { $1 }
    }

    func brados(_ arguments: [String], _ server: ServerProcess?, stdin: String? = nil, extra: [String: String] = [:]) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: environment(server, extra), stdin: stdin)
    }

    func signIn(_ server: ServerProcess) throws {
        let login = try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo")
        #expect(login.status == 0, "\(login.stderr)")
    }

    @Test("a cache command never deletes what you made and have not sent: cache clear keeps the queue and the kept plans; logout names them first")
    func nothingOfYoursIsLost() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["plan", "show"], server).status == 0)
        let queued = try brados(["--offline", "plan", "weight", "85.0"], server)
        #expect(queued.status == 0, "\(queued.stderr)")
        func pending() throws -> [[String: Any]] {
            let listed = try brados(["--offline", "plan", "pending", "--json"], server)
            return (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["pending"] as? [[String: Any]] ?? []
        }
        func keptPlans() throws -> Int {
            let listed = try brados(["--offline", "plan", "history", "--plans", "--json"], server)
            return ((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["plans"] as? [Any])?.count ?? -1
        }
        #expect(try pending().count == 1 && keptPlans() == 1)

        for command in [["cache", "clear", "plan"], ["cache", "clear"]] {
            let cleared = try brados(command, server)
            #expect(cleared.status == 0, "\(cleared.stderr)")
            #expect(cleared.stdout.contains("Kept 1 change you made and have not sent yet") && cleared.stdout.contains("plan: weight 85 kg"), "\(cleared.stdout)")
            #expect(cleared.stdout.contains("brados plan sync") && cleared.stdout.contains("--discard-pending"))
            #expect(cleared.stdout.contains("Kept the plan history (1 plan)"), "\(cleared.stdout)")
            #expect(try pending().count == 1, "\(command) kept the queued change")
            #expect(try keptPlans() == 1, "\(command) kept the kept plans")
        }
        let cachedPlan = try brados(["--offline", "plan", "show"], server)
        #expect(cachedPlan.status == 5, "the cached plan itself is gone: \(cachedPlan.stderr)")

        // auth logout names the change first: a script stops (nothing erased) unless --discard-pending.
        let refused = try brados(["auth", "logout"], server)
        #expect(refused.status == 14 && refused.stderr.contains("1 change you made has not been sent yet") && refused.stderr.contains("weight 85 kg"),
                "\(refused.stderr)")
        #expect(refused.stderr.contains("brados plan sync") && refused.stderr.contains("--discard-pending"))
        #expect(try pending().count == 1 && brados(["auth", "status", "--json"], server).stdout.contains("\"signedIn\" : true"))
        // On a terminal it asks; no keeps everything.
        let asked = try FakeTerminal.run(["brados", "auth", "logout"], options: ["--stderr", "--type", "[y/N] =n", "--timeout", "30"],
                                         environment: environment(server).merging(["PATH": BuiltProducts.directory.path + ":/usr/bin:/bin"]) { $1 })
        #expect(asked.status == 14 && asked.stdout.contains("Kept profile 'default' signed in"), "\(asked.stdout)")
        #expect(try pending().count == 1)

        let logout = try brados(["auth", "logout", "--discard-pending", "--json"], server)
        #expect(logout.status == 0, "\(logout.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(logout.stdout.utf8)) as? [String: Any])
        let discarded = try #require(report["discardedUnsent"] as? [[String: Any]])
        #expect(discarded.count == 1 && discarded.first?["summary"] as? String == "weight 85 kg" && discarded.first?["domain"] as? String == "plan")
        #expect((report["erasedHistory"] as? [[String: Any]])?.first?["count"] as? Int == 1)

        // --discard-pending on cache clear drops the change, and says which.
        try signIn(server)
        #expect(try brados(["--offline", "plan", "weight", "84.0"], server).status == 0)
        let dropped = try brados(["cache", "clear", "--discard-pending"], server)
        #expect(dropped.status == 0 && dropped.stdout.contains("Dropped the unsent change plan: weight 84 kg."), "\(dropped.stdout)")
        #expect(try pending().isEmpty)
        let nothing = try brados(["cache", "clear", "--discard-pending"], server)
        #expect(nothing.status == 0 && nothing.stdout.contains("There were no unsent changes to drop."), "\(nothing.stdout)")
    }

    @Test("a queue of changes that cannot be read blocks nothing and is never dropped unnamed: cache clear keeps it and says so; logout names it first")
    func unreadableQueue() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["plan", "show"], server).status == 0)
        let queue = home.url.appendingPathComponent("data/users/default/plan/pending.json")
        try FileManager.default.createDirectory(at: queue.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{ not a queue".utf8).write(to: queue)
        for discard in [false, true] {
            let cleared = try brados(["cache", "clear"] + (discard ? ["--discard-pending"] : []), server)
            #expect(cleared.status == 0, "\(cleared.stderr)")
            #expect(cleared.stdout.contains("Kept the queue of plan changes not sent (\(queue.path)), which cannot be read"), "\(cleared.stdout)")
            #expect(try String(contentsOf: queue, encoding: .utf8) == "{ not a queue", "the file is as it was")
        }
        let refused = try brados(["auth", "logout"], server)
        #expect(refused.status == 14 && refused.stderr.contains("which cannot be read") && refused.stderr.contains("--discard-pending"), "\(refused.stderr)")
        #expect(FileManager.default.fileExists(atPath: queue.path))
        let logout = try brados(["auth", "logout", "--discard-pending"], server)
        #expect(logout.status == 0 && logout.stdout.contains("the queue of plan changes not sent (unreadable)"), "\(logout.stdout) \(logout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: queue.path))
    }

    @Test("Ctrl-C after visits delete was sent: the outcome is unknown (exit 130), never a rollback it cannot know; the next refresh settles it either way")
    func interruptedDelete() async throws {
        let server = try ServerProcess()
        try signIn(server)
        let listed = try brados(["visits", "list", "--json"], server)
        let ids = ((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["visits"] as? [[String: Any]] ?? [])
            .compactMap { $0["id"] as? String }
        #expect(ids.count >= 2, "\(listed.stderr)")
        let (first, second) = (ids[0], ids[1])
        func onServer(_ id: String) async throws -> Bool {
            (try await server.sql("SELECT count(*) FROM visit WHERE id = ?", [id]).first?.first as? Int ?? 0) == 1
        }
        func cachedIDs() throws -> [String] {
            let offline = try brados(["--offline", "visits", "list", "--json"], server)
            return ((try JSONSerialization.jsonObject(with: Data(offline.stdout.utf8)) as? [String: Any])?["visits"] as? [[String: Any]] ?? [])
                .compactMap { $0["id"] as? String }
        }

        // The server deletes it, then answers slowly; Ctrl-C comes after the delete was applied.
        try await server.addFault(#"{"match": "DELETE /api/visits", "answerLatencyMs": 30000, "count": 1}"#)
        let applied = try BuiltProducts.start("brados", ["visits", "delete", first], environment: environment(server))
        #expect(try await eventually(timeout: .seconds(20)) { try await !onServer(first) }, "\(applied.stderrSoFar)")
        applied.send(SIGINT)
        let unknown = applied.finish()
        #expect(unknown.status == 130, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("Interrupted after the delete of visit \(first)") && unknown.stderr.contains("whether the server deleted it is not known yet"),
                "\(unknown.stderr)")
        #expect(!unknown.stderr.contains("back in the cache") && !unknown.stderr.contains("not deleted"), "no rollback it cannot know: \(unknown.stderr)")
        #expect(try !cachedIDs().contains(first), "out of the list until settled")
        let settled = try brados(["visits", "list", "--refresh"], server)
        #expect(settled.status == 0 && settled.stderr.contains("the interrupted delete of visit \(first)") && settled.stderr.contains("went through"),
                "\(settled.stderr)")
        #expect(try brados(["visits", "list", "--refresh"], server).stderr.isEmpty, "told once")

        // The server fails slowly (nothing deleted); Ctrl-C comes while it holds the request.
        try await server.resetStats()
        try await server.addFault(#"{"match": "DELETE /api/visits", "status": 503, "latencyMs": 30000, "count": 1}"#)
        let failing = try BuiltProducts.start("brados", ["visits", "delete", second], environment: environment(server))
        #expect(try await eventually(timeout: .seconds(20)) { try await server.stats().byRoute.keys.contains { $0.hasPrefix("DELETE") } })
        failing.send(SIGINT)
        let notKnown = failing.finish()
        #expect(notKnown.status == 130 && notKnown.stderr.contains("not known yet"), "\(notKnown.stderr)")
        #expect(try await onServer(second))
        let back = try brados(["visits", "list", "--refresh"], server)
        #expect(back.stderr.contains("visit \(second)") && back.stderr.contains("was not deleted") && back.stderr.contains("back in the list"), "\(back.stderr)")
        #expect(try cachedIDs().contains(second))
    }

    /// A message from the coach, the conversation's newest, written on the server as another client would.
    static func addMessage(_ id: String, _ content: String, to conversation: String, _ server: ServerProcess) async throws {
        try await server.sql("""
            INSERT INTO messages (id, conversation_id, user_id, role, content, created_at)
            SELECT ?, id, user_id, 'assistant', ?, (julianday('now') - 2440587.5) * 86400.0 + 60 FROM conversations WHERE id = ?
            """, [id, content, conversation])
    }

    /// The lines a pseudo-terminal showed, escape sequences taken out, as a person sees them.
    static func screenLines(_ output: String) -> [String] {
        output.replacingOccurrences(of: "\r", with: "")
            .replacingOccurrences(of: #"\x{1B}\[[0-9;?]*[A-Za-z]"#, with: "", options: .regularExpression)
            .split(separator: "\n").map(String.init)
    }

    @Test("80 columns: tables fit the terminal (cut with an ellipsis, or fewer columns), coach messages wrap under their first line")
    func eightyColumns() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo").status == 0)
        let long = String(repeating: "a long sentence about training for a race ", count: 6)
        #expect(try brados(["visits", "add", "--place", "A place with a rather long name for a table", "--notes", long], server).status == 0)
        let environment = environment(server).merging(["PATH": BuiltProducts.directory.path + ":/usr/bin:/bin"]) { $1 }
        let conversation = try brados(["coach", "conversations", "--json"], server)
        let id = try #require(((try JSONSerialization.jsonObject(with: Data(conversation.stdout.utf8)) as? [String: Any])?["conversations"]
            as? [[String: Any]])?.first?["id"] as? String)
        try await Self.addMessage("wrap-1", long, to: id, server)
        for command in [["visits", "list", "--refresh"], ["config", "list"], ["exit-codes"], ["coach", "conversations"],
                        ["coach", "show", id, "--last", "2", "--full"], ["plugins", "list"], ["mealplan", "show"], ["today"],
                        ["plan", "show", "--art", "none"], ["auth", "status"], ["cache", "stats"], ["search", "protein"],
                        ["library", "albums", "--limit", "5"], ["doctor"]] {
            let result = try FakeTerminal.run(["brados"] + command + ["--no-pager"], options: ["--size", "24x80", "--timeout", "30"],
                                              environment: environment)
            #expect(result.status == 0, "\(command): \(result.stdout)")
            // (What a terminal query echoes before brados's first line is the terminal's, not brados's output.)
            let lines = Self.screenLines(result.stdout).map { $0.replacingOccurrences(of: #"^_G[^\\]*\\"#, with: "", options: .regularExpression) }
            // (Bidirectional isolates take no column: the demo's Hebrew place holds two.)
            let wide = lines.filter { $0.filter { $0.unicodeScalars.first?.properties.generalCategory != .format }.count > 80 }
            #expect(wide.isEmpty, "\(command): \(wide.count) lines wider than 80 columns: \(wide.prefix(2))")
            if command[0] == "coach", command[1] == "show" {
                // The long message wraps at words, each line after the first under its text.
                let start = try #require(lines.firstIndex { $0.contains("coach  a long sentence") }, "\(lines)")
                #expect(lines[start + 1].hasPrefix(String(repeating: " ", count: 25)) && lines[start + 1].contains("a long"), "\(lines[start...])")
                #expect(!lines[start].hasSuffix("a lon"), "cut at a word boundary: \(lines[start])")
            }
        }
    }

    @Test("a colour code in a server's text is shown, never obeyed: on a terminal and through a pipe")
    func serverColoursAreText() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo").status == 0)
        let listed = try brados(["coach", "conversations", "--json"], server)
        let id = try #require(((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["conversations"]
            as? [[String: Any]])?.first?["id"] as? String)
        try await Self.addMessage("red-1", "\u{1B}[31mred\u{1B}[0m and \u{1B}]0;title\u{07} and \u{9B}1m", to: id, server)
        let piped = try brados(["coach", "show", id, "--last", "1", "--full"], server)
        #expect(piped.status == 0 && !piped.stdout.unicodeScalars.contains("\u{1B}"), "\(piped.stdout)")
        #expect(piped.stdout.contains("^[[31mred^[[0m and ^[]0;title^G and ^[[1m"), "\(piped.stdout)")
        let screen = try FakeTerminal.run(["brados", "coach", "show", id, "--last", "1", "--no-pager"], options: ["--size", "24x120"],
                                          environment: environment(server).merging(["PATH": BuiltProducts.directory.path + ":/usr/bin:/bin"]) { $1 })
        #expect(screen.stdout.contains("^[[31mred"), "\(screen.stdout)")
        #expect(!screen.stdout.contains("\u{1B}[31mred"), "the server's colour reached the terminal")
    }

    @Test("a dropped or truncated response is the server's failure (exit 6), an unreachable server exit 5; both name host and port")
    func networkErrors() async throws {
        let server = try ServerProcess()
        try signIn(server)
        let endpoint = "\(server.url.host ?? ""):\(server.url.port ?? 0)"
        for fault in [#"{"match": "GET /api/visits", "drop": true}"#, #"{"match": "GET /api/visits", "truncate": true}"#] {
            try await server.clearFaults()
            try await server.addFault(fault)
            let result = try brados(["visits", "list", "--refresh"], server)
            #expect(result.status == 6, "\(fault): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("The connection to \(endpoint) was lost (the response was cut off)."), "\(result.stderr)")
            #expect(!result.stderr.contains("Could not reach"))
        }
        try await server.clearFaults()
        let port = server.url.port ?? 0
        server.stop()
        let refused = try brados(["visits", "list", "--refresh"], server)
        #expect(refused.status == 5 && refused.stderr.contains("Could not reach 127.0.0.1:\(port) (connection refused)."), "\(refused.stderr)")
    }

    @Test("usage errors say brados: like every other; a mistyped config key or --profile gets the nearest one, and nothing is made")
    func namesAndPrefixes() throws {
        let option = try brados(["visits", "list", "--bogus"], nil)
        #expect(option.status == 64 && option.stderr.hasPrefix("brados: Unknown option '--bogus'"), "\(option.stderr)")
        #expect(!option.stderr.contains("Error:"))

        let key = try brados(["config", "set", "visits.tl", "5m"], nil)
        #expect(key.status == 64 && key.stderr.contains("Unknown configuration key 'visits.tl'. Did you mean 'visits.ttl'?"), "\(key.stderr)")

        // A profile starts with a sign-in (the built-in demo backend: no password needed).
        let started = try brados(["--profile", "work", "auth", "login"], nil)
        #expect(started.status == 0 && started.stdout.contains("Signed in as demo on the built-in demo backend (profile work)"), "\(started.stdout)\(started.stderr)")
        for command in [["visits", "list"], ["plan", "history"], ["search", "protein"], ["today"], ["cache", "stats"], ["auth", "status"]] {
            let typo = try brados(["--profile", "wrok"] + command, nil)
            #expect(typo.status == 64, "\(command): \(typo.status) \(typo.stderr)")
            #expect(typo.stderr.contains("There is no profile 'wrok'. Did you mean 'work'?"), "\(typo.stderr)")
        }
        let fromEnvironment = try brados(["visits", "list"], nil, extra: ["BRADOS_PROFILE": "wrok"])
        #expect(fromEnvironment.status == 64)
        for root in ["cache/users/wrok", "data/users/wrok", "config/credentials/wrok.json"] {
            #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent(root).path), "\(root) was made")
        }
    }

    @Test("--at reads the ISO 8601 a person types: a day, a time to the minute, seconds; without an offset it is local time")
    func datesAsTyped() throws {
        let server = try ServerProcess()
        try signIn(server)
        let tokyo = ["TZ": "Asia/Tokyo"]
        for (typed, stored) in [("2026-11-28", "2026-11-27T15:00:00"), ("2026-11-28T14:30", "2026-11-28T05:30:00"),
                                ("2026-11-27T18:30:00", "2026-11-27T09:30:00"), ("2026-11-27T18:30:00Z", "2026-11-27T18:30:00"),
                                ("2026-11-27 18:30", "2026-11-27T09:30:00"), ("2026-11-27T18:30:00+01:00", "2026-11-27T17:30:00")] {
            let added = try brados(["visits", "add", "--place", "Typed \(typed)", "--at", typed, "--json"], server, extra: tokyo)
            #expect(added.status == 0, "\(typed): \(added.stderr)")
            let visit = (try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])?["visit"] as? [String: Any]
            #expect((visit?["visitedAt"] as? String)?.hasPrefix(stored) == true, "\(typed): \(visit?["visitedAt"] ?? "-"), expected \(stored)")
        }
        for wrong in ["2026-02-31", "28/11/2026", "2026-11-28T25:00", "tomorrow"] {
            let refused = try brados(["visits", "add", "--place", "x", "--at", wrong], server)
            #expect(refused.status == 64 && refused.stderr.contains("is not a date brados reads"), "\(wrong): \(refused.stderr)")
        }
    }

    @Test("a password is asked for on a terminal, never echoed, with or without --password-stdin; a script without it is told how")
    func passwordPrompt() throws {
        let server = try ServerProcess()
        for flags in [[], ["--password-stdin"]] {
            let profile = flags.isEmpty ? "typed" : "typed-stdin"
            let result = try FakeTerminal.run(["brados", "--profile", profile, "auth", "login", "--user", "demo"] + flags,
                                              options: ["--stderr", "--type", "Password for demo: =demo", "--timeout", "30"],
                                              environment: environment(server).merging(["PATH": BuiltProducts.directory.path + ":/usr/bin:/bin"]) { $1 })
            #expect(result.status == 0, "\(flags): \(result.stdout)")
            #expect(result.stdout.contains("Password for demo: ") && result.stdout.contains("Signed in as demo"), "\(result.stdout)")
            #expect(!result.stdout.contains("Password for demo: demo"), "the password is not echoed: \(result.stdout)")
        }
        let script = try brados(["--profile", "script", "auth", "login", "--user", "demo"], server, stdin: "demo")
        #expect(script.status == 64 && script.stderr.contains("--password-stdin"), "\(script.stderr)")
    }

    @Test("a follow whose server goes away says so in one sentence, with when it follows again; no library type in it")
    func followGap() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo").status == 0)
        let follow = try BuiltProducts.start("brados", ["coach", "show", "1eca", "--follow", "--last", "1"], environment: environment(server))
        #expect(try await eventually(timeout: .seconds(30)) { try await server.realtimeChannels() == 1 }, "\(follow.stderrSoFar)")
        let port = server.url.port ?? 0
        server.stop()
        #expect(await eventually(timeout: .seconds(30)) { follow.stderrSoFar.contains("following again") }, "\(follow.stderrSoFar)")
        follow.send(SIGINT)
        let result = follow.finish()
        let gap = try #require(result.stderr.split(separator: "\n").first { $0.contains("following paused") }, "\(result.stderr)")
        #expect(gap.hasPrefix("brados: following paused (") && gap.hasSuffix("after catching up on what was missed."), "\(gap)")
        #expect(gap.contains("127.0.0.1:\(port)") || gap.contains("closed"), "\(gap)")
        for dump in ["SingleConnectionFailure", "NIOConnectionError", "IOError", "[IPv4]"] { #expect(!result.stderr.contains(dump), "\(result.stderr)") }
    }
}
