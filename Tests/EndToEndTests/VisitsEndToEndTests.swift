import Foundation
import Testing
import TestSupport

/// The visits domain end to end: the built `brados` against a `brados-server` process.
@Suite("End to end: visits", .serialized)
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

    /// Waits (bounded) for a condition that a background process makes true.
    func eventually(timeout: TimeInterval = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(100_000)
        }
        return try condition()
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
        let cacheFile = home.url.appendingPathComponent("data/users/default/defaults.json")
        #expect(try eventually { try String(contentsOf: cacheFile, encoding: .utf8).contains("Night Clinic") })
        let next = try brados(["visits", "list", "--json", "--offline"], server)
        #expect(try ids(next).count == 21)
        #expect(try await server.stats().byRoute["GET /api/visits"] == 1)
    }

    @Test("an expired cache falls back to the stale list when the server fails, exit 0")
    func staleIfError() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["visits"], server).status == 0)
        #expect(try brados(["config", "set", "visits.ttl", "0s"], server).status == 0)
        try await server.addFault(#"{"match":"GET /api/visits","status":503}"#)
        let fallback = try brados(["visits"], server)
        #expect(fallback.status == 0, "\(fallback.stderr)")
        #expect(fallback.stderr.contains("showing cached visits from"))
        #expect(fallback.stdout.contains("expired"))
        server.stop()
        let down = try brados(["visits"], server)
        #expect(down.status == 0)
        #expect(down.stderr.contains("Could not reach"))
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

    @Test("SIGTERM or SIGHUP during a delete the server is slow to answer: the visit is restored, exit 128 + the signal",
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
        #expect(try eventually { try !ids(try brados(["visits", "--json", "--offline"], server)).contains(target) })
        running.send(signal)
        let result = running.finish()
        #expect(result.status == 128 + signal, "\(result.stderr)")
        #expect(try ids(try brados(["visits", "--json", "--offline"], server)) == before, "the deleted visit is back in the cache")
        try await server.clearFaults()
    }

    @Test("a reader that goes away (`| head -1`): brados ends quietly, with no error text")
    func brokenPipe() async throws {
        let server = try ServerProcess()
        try signIn(server)
        let environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString]
        for command in ["visits list", "visits list --offline", "visits list --json", "--help"] {
            let result = try BuiltProducts.run(executable: URL(fileURLWithPath: "/bin/bash"),
                                               ["-c", "\"$0\" \(command) | head -1; exit ${PIPESTATUS[0]}", BuiltProducts.url("brados").path],
                                               environment: environment)
            // 141: ended by SIGPIPE, as Unix tools are; 0: everything fitted in the pipe first.
            #expect([0, 141].contains(result.status), "\(command): \(result.status)")
            #expect(result.stderr.isEmpty, "\(command): \(result.stderr)")
            #expect(result.stdout.split(separator: "\n").count == 1, "\(command)")
        }
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
