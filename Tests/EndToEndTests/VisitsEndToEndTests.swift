import Foundation
import Testing
import TestSupport

/// The visits domain end to end: the built `brados` against a `brados-server` process.
@Suite("End to end: visits", .serialized, .ownThread)
struct VisitsEndToEndTests {
    let home = TemporaryDirectory("e2e-visits")
    let otherHome = TemporaryDirectory("e2e-visits-other")

    func brados(_ arguments: [String], _ server: ServerProcess, home: TemporaryDirectory? = nil, stdin: String? = nil) throws -> BuiltProducts.Result {
        let home = home ?? self.home
        return try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ], stdin: stdin)
    }

    func signIn(_ server: ServerProcess, home: TemporaryDirectory? = nil) throws {
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, home: home, stdin: "demo").status == 0)
    }

    func ids(_ result: BuiltProducts.Result) throws -> [String] {
        let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (document?["visits"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    @Test("with 2 s of server latency, a fresh cache prints in well under a second; the next call shows newer data")
    func staleWhileRevalidate() async throws {
        let server = try ServerProcess()
        try signIn(server)
        let first = try brados(["visits", "list", "--json"], server)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try ids(first)
        #expect(before.count == 20)

        // Another device adds a visit; the server gets slow.
        try signIn(server, home: otherHome)
        let added = try brados(["visits", "add", "--place", "Night Clinic", "--duration", "15", "--json"], server, home: otherHome)
        #expect(added.status == 0, "\(added.stderr)")
        try await server.addFault(#"{"match":"GET /api/visits","latencyMs":2000}"#)
        try await server.resetStats()

        let started = Date()
        let quick = try brados(["visits", "list", "--json"], server)
        let elapsed = Date().timeIntervalSince(started)
        #expect(quick.status == 0)
        #expect(elapsed < 1.0, "visits list took \(elapsed) s with a fresh cache")
        #expect(try ids(quick) == before)

        // The detached revalidation lands the new visit in the cache.
        let cacheFile = home.url.appendingPathComponent("data/users/default/visits/visits.json")
        #expect(try await eventually { try String(contentsOf: cacheFile, encoding: .utf8).contains("Night Clinic") })
        let next = try brados(["visits", "list", "--json", "--offline"], server)
        #expect(try ids(next).count == 21)
        #expect(try await server.stats().byRoute["GET /api/visits"] == 1)
    }

    @Test("--verbose says the cache's age and whether it is valid, as spec 001's cache lines do")
    func verboseCacheLines() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["visits", "list"], server).status == 0)
        let valid = try brados(["--verbose", "visits", "list", "--json"], server)
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stderr.range(of: #"brados: debug: cache age \d+ s \(valid\)"#, options: .regularExpression) != nil, "\(valid.stderr)")
        #expect(!valid.stderr.contains("cache expired"))
        #expect(try brados(["config", "set", "visits.ttl", "0s"], server).status == 0)
        let expired = try brados(["-v", "visits", "list", "--json"], server)
        #expect(expired.status == 0, "\(expired.stderr)")
        #expect(expired.stderr.range(of: #"brados: debug: cache expired, fetching \(age \d+ s\)"#, options: .regularExpression) != nil, "\(expired.stderr)")
        // Without --verbose, not a word of it.
        let quiet = try brados(["visits", "list", "--json"], server)
        #expect(!quiet.stderr.contains("cache age") && !quiet.stderr.contains("cache expired"))
    }

    @Test("an expired cache falls back to the stale list when the server fails, exit 0")
    func staleIfError() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["visits"], server).status == 0)
        #expect(try brados(["config", "set", "visits.ttl", "0s"], server).status == 0)
        // Every read starts its refresh behind (not one per 30 s): each failure is the latest.
        #expect(try brados(["config", "set", "visits.min-refresh-interval", "0s"], server).status == 0)
        try await server.addFault(#"{"match":"GET /api/visits","status":503}"#)
        let fallback = try brados(["visits"], server)
        #expect(fallback.status == 0, "\(fallback.stderr)")
        #expect(fallback.stderr.contains("showing visits cached") && fallback.stderr.contains("out of date"), "\(fallback.stderr)")
        #expect(fallback.stdout.contains("expired"))
        // The refresh behind met the 503: the next read still answers, and says so.
        #expect(await eventually(timeout: .seconds(30)) { (try? brados(["visits"], server).stderr.contains("The server answered 503")) == true })
        server.stop()
        #expect(await eventually(timeout: .seconds(30)) {
            guard let down = try? brados(["visits"], server) else { return false }
            return down.status == 0 && down.stderr.contains("Could not reach")
        })
    }

    @Test("delete is rolled back exactly when the server answers 500, and sticks when it succeeds")
    func optimisticDelete() async throws {
        let server = try ServerProcess()
        try signIn(server)
        let before = try ids(try brados(["visits", "--json"], server))
        let target = before[3]
        try await server.addFault(#"{"match":"DELETE /api/visits","status":500}"#)
        let failed = try brados(["visits", "delete", target], server)
        #expect(failed.status == 6)
        #expect(failed.stderr.contains("back in the cache"))
        #expect(try ids(try brados(["visits", "--json", "--offline"], server)) == before)

        try await server.clearFaults()
        let deleted = try brados(["visits", "delete", target], server)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try ids(try brados(["visits", "--json", "--offline"], server)) == before.filter { $0 != target })
        #expect(try brados(["visits", "show", target], server).status == 3)
    }

    @Test("SIGTERM or SIGHUP during a delete the server is slow to answer: exit 128 + the signal, the outcome unknown until the next refresh settles it",
          arguments: [SIGTERM, SIGHUP])
    func signalDuringDelete(signal: Int32) async throws {
        let server = try ServerProcess()
        try signIn(server)
        let before = try ids(try brados(["visits", "--json"], server))
        let target = before[2]
        try await server.addFault(#"{"match":"DELETE /api/visits","latencyMs":10000}"#)
        let running = try BuiltProducts.start("brados", ["visits", "delete", target], environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ])
        // The optimistic removal is on disk: the delete is in flight.
        #expect(try await eventually { try !ids(try brados(["visits", "--json", "--offline"], server)).contains(target) })
        running.send(signal)
        let result = running.finish()
        #expect(result.status == 128 + signal, "\(result.stderr)")
        #expect(result.stderr.contains("not known yet"), "\(result.stderr)")
        #expect(try !ids(try brados(["visits", "--json", "--offline"], server)).contains(target), "never put back when the server may have it")
        try await server.clearFaults()
        let settled = try brados(["visits", "list", "--refresh"], server)
        #expect(settled.stderr.contains("went through") || settled.stderr.contains("back in the list"), "\(settled.stderr)")
    }

    @Test("one profile lock: a running command makes `cache clear` wait for it; an import makes commands wait; past profile.lock-timeout, exit 11 naming the other brados")
    func profileLock() async throws {
        let server = try ServerProcess()
        try signIn(server)
        let before = try ids(try brados(["visits", "--json"], server))
        let environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString]
        try await server.addFault(#"{"match":"DELETE /api/visits","latencyMs":3000}"#)
        let running = try BuiltProducts.start("brados", ["visits", "delete", before[1]], environment: environment)
        #expect(try await eventually { try !ids(try brados(["visits", "--json", "--offline"], server)).contains(before[1]) })
        // A clear that may not wait is refused at once, naming the running command.
        let busy = try BuiltProducts.run("brados", ["cache", "clear", "visits"], environment: environment.merging(["BRADOS_PROFILE_LOCK_TIMEOUT": "0s"]) { $1 })
        #expect(busy.status == 11, "\(busy.stderr)")
        #expect(busy.stderr.contains("brados visits delete \(before[1]) (pid \(running.pid)) is still using it"), "named by what it runs: \(busy.stderr)")
        // One that may wait starts only once the delete has finished: the delete is not lost under it.
        let clear = try BuiltProducts.run("brados", ["cache", "clear", "visits"], environment: environment)
        #expect(clear.status == 0, "\(clear.stderr)")
        #expect(!running.isRunning, "cache clear ran while the delete was still running")
        #expect(running.finish().status == 0)
        try await server.clearFaults()
        #expect(try !ids(try brados(["visits", "--json"], server)).contains(before[1]))

        // An import holds the profile alone: a command waits for it, then gives up.
        let lockFile = home.url.appendingPathComponent("data/locks/default.lock")
        #expect(FileManager.default.fileExists(atPath: lockFile.path))
        let fd = open(lockFile.path, O_RDWR)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        let holder = "\(getpid()) importing\n"
        #expect(pwrite(fd, holder, holder.utf8.count, 0) == holder.utf8.count)
        let started = Date()
        let waited = try BuiltProducts.run("brados", ["visits", "--offline"], environment: environment.merging(["BRADOS_PROFILE_LOCK_TIMEOUT": "1s"]) { $1 })
        #expect(waited.status == 11)
        #expect(Date().timeIntervalSince(started) >= 1)
        #expect(waited.stderr.contains("Profile 'default' is busy: another brados (pid \(getpid())) is still importing."), "\(waited.stderr)")
        #expect(waited.stdout.isEmpty)
        _ = ftruncate(fd, 0)
        _ = flock(fd, LOCK_UN)
        #expect(try brados(["visits", "--offline"], server).status == 0)
    }

    @Test("a script that lists visits in a loop starts one background revalidation per visits.min-refresh-interval, not one per call")
    func refreshInterval() async throws {
        let server = try ServerProcess()
        try signIn(server)
        _ = try brados(["visits", "--json"], server)
        try await server.resetStats()
        for _ in 0..<20 { #expect(try brados(["visits", "list", "--json"], server).status == 0) }
        // The one detached revalidation has time to reach the server.
        #expect(try await eventually { try await server.stats().byRoute["GET /api/visits"] == 1 })
        // Every revalidation the 20 calls started has ended: the count is final.
        #expect(await eventually { !BuiltProducts.isRunning(home: home.url) })
        #expect(try await server.stats().byRoute["GET /api/visits"] == 1, "more than one revalidation in 20 calls")
        // With the interval set to zero, every call starts one (the lock makes them one at a time).
        try await server.resetStats()
        let everyCall = try BuiltProducts.run("brados", ["visits", "list", "--json"], environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
            "BRADOS_VISITS_MIN_REFRESH_INTERVAL": "0s",
        ])
        #expect(everyCall.status == 0)
        #expect(try await eventually { try await server.stats().byRoute["GET /api/visits"] == 1 })
    }

    @Test("a reader that goes away (`| head -1`): brados ends quietly, with no error text")
    func brokenPipe() async throws {
        let server = try ServerProcess()
        try signIn(server)
        let environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString]
        for command in ["visits list", "visits list --offline", "visits list --json", "--help"] {
            let result = try BuiltProducts.run(executable: SystemCommand.url("bash"),
                                               ["-c", "\"$0\" \(command) | head -1; exit ${PIPESTATUS[0]}", BuiltProducts.url("brados").path],
                                               environment: environment)
            // 141: ended by SIGPIPE, as Unix tools are; 0: everything fitted in the pipe first.
            #expect([0, 141].contains(result.status), "\(command): \(result.status)")
            #expect(result.stderr.isEmpty, "\(command): \(result.stderr)")
            #expect(result.stdout.split(separator: "\n").count == 1, "\(command)")
        }
    }

    @Test("offline, visits add records the visit here, shown pending; sync sends it and settles its id; a send whose answer was lost is settled by the list, never sent twice")
    func offlineAddQueues() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["visits", "list"], server).status == 0)
        let queued = try brados(["--offline", "visits", "add", "--place", "Offline Clinic", "--duration", "25", "--json"], server)
        #expect(queued.status == 0, "queued, not refused: \(queued.stderr)")
        #expect(queued.stderr.contains("recorded here as local-"), "\(queued.stderr)")
        let pending = try #require((try JSONSerialization.jsonObject(with: Data(queued.stdout.utf8)) as? [String: Any])?["visit"] as? [String: Any])
        let local = try #require(pending["id"] as? String)
        #expect(local.hasPrefix("local-") && pending["pending"] as? Bool == true)
        let listed = try brados(["visits", "list", "--offline", "--json"], server)
        #expect(try ids(listed).contains(local), "shown in the list, pending")
        let problems = try JSONContract(name: "visits-list").problems(in: listed.stdout)
        #expect(problems.isEmpty, "\(problems)")
        let unsent = try brados(["cache", "clear", "visits"], server)
        let kept = try ids(try brados(["visits", "list", "--offline", "--json"], server))
        #expect(unsent.status == 0 && kept.contains(local), "cache clear keeps it: \(unsent.stdout)")
        #expect(try await server.sql("SELECT COUNT(*) FROM visit WHERE place = 'Offline Clinic'").first?.first as? Int == 0)

        let synced = try brados(["sync", "--domains", "visits"], server)
        #expect(synced.status == 0, "\(synced.stderr)")
        let after = try ids(try brados(["visits", "list", "--offline", "--json"], server))
        #expect(!after.contains(local), "its local id is gone")
        let onServer = try await server.sql("SELECT id FROM visit WHERE place = 'Offline Clinic'").map { "\($0[0])" }
        #expect(onServer.count == 1 && after.contains(onServer[0]), "the server's id in the list: \(onServer) \(after)")

        // Sent, and the answer lost: not sent again; the list finds it.
        try await server.addFault(#"{"match":"POST /api/visits","truncate":true}"#)
        let lost = try brados(["visits", "add", "--place", "Lost Answer Clinic", "--json"], server)
        #expect(lost.status == 0, "\(lost.stderr)")
        #expect(lost.stderr.contains("no answer came"), "\(lost.stderr)")
        try await server.clearFaults()
        #expect(try await server.sql("SELECT COUNT(*) FROM visit WHERE place = 'Lost Answer Clinic'").first?.first as? Int == 1, "sent once")
        let settled = try brados(["visits", "list", "--refresh", "--json"], server)
        #expect(settled.status == 0 && settled.stderr.contains("is on the server now"), "\(settled.stderr)")
        #expect(try await server.sql("SELECT COUNT(*) FROM visit WHERE place = 'Lost Answer Clinic'").first?.first as? Int == 1, "never twice")
        #expect(try ids(settled).filter { $0.hasPrefix("local-") }.isEmpty)
    }

    @Test("a delete whose answer is lost after the server deleted says the outcome is not known (exit 6), and the next refresh settles it")
    func deleteAnswerLost() async throws {
        let server = try ServerProcess()
        try signIn(server)
        let id = try #require(try ids(try brados(["visits", "list", "--json"], server)).first)
        // The server deletes it, and its answer comes after the request's time is up.
        try await server.addFault(#"{"match":"DELETE /api/visits","answerLatencyMs":3000,"count":1}"#)
        let deleted = try BuiltProducts.run("brados", ["visits", "delete", id], environment: ["BRADOS_HOME": home.url.path, "HOME": home.url.path,
                                            "BRADOS_SERVER": server.url.absoluteString, "BRADOS_NETWORK_TIMEOUT": "1s"])
        #expect(deleted.status == 6, "\(deleted.stderr)")
        #expect(deleted.stderr.contains("whether the server deleted it is not known yet"), "\(deleted.stderr)")
        #expect(!(try ids(try brados(["visits", "list", "--offline", "--json"], server)).contains(id)), "not restored: the server may have deleted it")
        try await server.clearFaults()
        let refreshed = try brados(["visits", "list", "--refresh"], server)
        #expect(refreshed.stderr.contains("went through"), "\(refreshed.stderr)")
    }

    @Test("today shows today's visits still to come, then the last one")
    func todayUpcoming() async throws {
        let server = try ServerProcess()
        try signIn(server)
        // In two hours, today (UTC, the test's zone), unless that is tomorrow already.
        let now = Date()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let later = min(now.addingTimeInterval(2 * 3600), calendar.startOfDay(for: now).addingTimeInterval(86_400 - 60))
        guard later > now.addingTimeInterval(60) else { return }  // a minute before midnight: nothing of today is left to come
        #expect(try brados(["visits", "list"], server).status == 0)
        let stamp = ISO8601DateFormatter().string(from: later)
        #expect(try brados(["visits", "add", "--place", "Afternoon Physio", "--at", stamp], server).status == 0)
        let today = try BuiltProducts.run("brados", ["today", "--offline"], environment: ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "TZ": "UTC",
                                                                                      "BRADOS_SERVER": server.url.absoluteString])
        #expect(today.stdout.contains("Today: Afternoon Physio at "), "\(today.stdout)")
        #expect(today.stdout.contains("Last: "), "\(today.stdout)")
    }

    @Test("logout clears the cached visits so the next user never sees them")
    func logoutClears() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["visits"], server).status == 0)
        #expect(try brados(["auth", "logout"], server).status == 0)
        #expect(try brados(["auth", "login", "--user", "alice", "--password-stdin"], server, stdin: "alice").status == 0)
        let offline = try brados(["visits", "--offline"], server)
        #expect(offline.status == 5, "alice must not see demo's cached visits")
        let alice = try ids(try brados(["visits", "--json"], server))
        #expect(alice.count == 12)
        #expect(alice.allSatisfy { $0.hasPrefix("v_seed1") })
    }
}
