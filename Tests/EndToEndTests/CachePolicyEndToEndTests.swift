import Foundation
import Testing
import TestSupport

/// Issue 17, end to end: every domain's reads go through one policy mechanism, so with the
/// server down each read command answers from its cache with the same `source` object, and
/// with an expired session each exits with the auth code naming the service to sign in to.
@Suite("End to end: one cache policy for every domain", .serialized, .ownThread)
struct CachePolicyEndToEndTests {
    let home = TemporaryDirectory("e2e-policy")

    func brados(_ arguments: [String], _ server: URL, stdin: String? = nil, home: TemporaryDirectory? = nil) throws -> BuiltProducts.Result {
        let home = home ?? self.home
        return try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.absoluteString,
        ], stdin: stdin)
    }

    func json(_ result: BuiltProducts.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\n\(result.stderr)")
    }

    /// The lines brados printed on stderr about itself.
    func notices(_ result: BuiltProducts.Result) -> [String] {
        result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("brados: ") }
    }

    /// Every domain's read command (with a subject to read for those that need one).
    func reads(conversation: String) -> [(domain: String, arguments: [String])] {
        [("mealplan", ["mealplan", "show", "--json"]), ("visits", ["visits", "list", "--json"]),
         ("library", ["library", "albums", "--json"]), ("coach", ["coach", "conversations", "--json"]),
         ("coach show", ["coach", "show", conversation, "--json"]), ("coach context", ["coach", "context", "--json"]),
         ("plan", ["plan", "show", "--json"])]
    }

    /// Signs in (both accounts) and fills every domain's cache: a finalized meal plan too.
    func fill(_ server: ServerProcess) throws -> String {
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server.url, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server.url, stdin: "demo").status == 0)
        #expect(try brados(["mealplan", "new"], server.url).status == 0)
        #expect(try brados(["mealplan", "finalize"], server.url).status == 0)
        let conversations = try json(try brados(["coach", "conversations", "--json"], server.url))["conversations"] as? [[String: Any]]
        let conversation = try #require(conversations?.first?["id"] as? String)
        for read in reads(conversation: conversation) {
            let result = try brados(read.arguments, server.url)
            #expect(result.status == 0, "\(read.domain): \(result.stderr)")
            let source = try json(result)["source"] as? [String: Any]
            #expect(source?["kind"] as? String != nil, "\(read.domain)")
        }
        return conversation
    }

    @Test("server down: every read exits 0 from its cache at once, with the same six source keys; a stale copy gets one notice; the next read tells why the refresh behind failed")
    func serverDown() async throws {
        let server = try ServerProcess()
        let conversation = try fill(server)
        // Stale everywhere a policy can be stale: the visits and context TTLs to zero, the
        // plan's cached copy two days old; coach conversations and messages are refreshed
        // behind every read (never stale by age).
        #expect(try brados(["config", "set", "visits.ttl", "0s"], server.url).status == 0)
        #expect(try brados(["config", "set", "coach.context-ttl", "0s"], server.url).status == 0)
        let planFile = home.url.appendingPathComponent("cache/users/default/plan/plan.json")
        var plan = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: planFile)) as? [String: Any])
        plan["cachedAt"] = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-2 * 86400))
        try JSONSerialization.data(withJSONObject: plan).write(to: planFile)
        let url = server.url
        server.stop()

        var keys: Set<Set<String>> = []
        for read in reads(conversation: conversation) {
            let result = try brados(read.arguments, url)
            #expect(result.status == 0, "\(read.domain) exited \(result.status): \(result.stderr)")
            let source = try #require(try json(result)["source"] as? [String: Any], "\(read.domain)")
            keys.insert(Set(source.keys))
            #expect(source["kind"] as? String == "cache", "\(read.domain)")
            let stale = source["stale"] as? Bool == true
            // The finalized meal plan is never refreshed; every other copy is, behind the read.
            #expect(source["refreshing"] as? Bool == (read.domain != "mealplan"), "\(read.domain): \(source)")
            // A stale copy says so once, in the JSON too; the others answer as they are.
            let expected = ["visits", "coach context", "plan"].contains(read.domain) ? 1 : 0
            #expect(stale == (expected == 1), "\(read.domain): \(source)")
            #expect(notices(result).count == expected, "\(read.domain): \(result.stderr)")
            if expected == 1 {
                #expect(notices(result).first == "brados: " + (source["notice"] as? String ?? "-"), "\(read.domain)")
                // One plan, one context profile: "it"; the visits: "them".
                let pronoun = read.domain == "visits" ? "them" : "it"
                #expect((source["notice"] as? String)?.contains("out of date; refreshing \(pronoun) in the background") == true, "\(read.domain): \(source)")
            }
        }
        #expect(keys == [["kind", "ageSeconds", "stale", "refreshing", "reason", "notice"]])
        // The refreshes behind could not reach the server: the next read says so (and still answers).
        let failed = home.url.appendingPathComponent("cache/users/default/visits/.refresh-stamp.failed")
        #expect(await eventually(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: failed.path) })
        let next = try brados(["visits", "list", "--json"], url)
        #expect(next.status == 0 && next.stderr.contains("the last refresh of the visits in the background failed")
                && next.stderr.contains("Could not reach"), "\(next.stderr)")
        // An explicit refresh of the context profile asks first, and its copy still answers.
        let context = try brados(["coach", "context", "--refresh", "--json"], url)
        #expect(context.status == 0, "\(context.stderr)")
        #expect(notices(context).count == 1, "\(context.stderr)")
    }

    @Test("an expired session: every domain exits 4 (a read with a copy once its refresh behind has found it), and the advice names the service to sign in to")
    func expiredSession() async throws {
        let server = try ServerProcess()
        let conversation = try fill(server)
        // Stale copies (visits, plan) must not answer an expired session either.
        #expect(try brados(["config", "set", "visits.ttl", "0s"], server.url).status == 0)
        let planFile = home.url.appendingPathComponent("cache/users/default/plan/plan.json")
        var plan = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: planFile)) as? [String: Any])
        plan["cachedAt"] = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-2 * 86400))
        try JSONSerialization.data(withJSONObject: plan).write(to: planFile)
        // Every request, the token renewals included, is refused as unauthorized.
        try await server.addFault(#"{"match":"*","status":401}"#)
        let networkReads: [(domain: String, arguments: [String], service: String?)] = [
            ("mealplan", ["mealplan", "refresh"], nil), ("visits", ["visits", "list", "--refresh"], nil),
            ("library", ["library", "albums", "--refresh"], nil), ("coach", ["coach", "conversations"], "supabase"),
            ("coach show", ["coach", "show", conversation], "supabase"), ("plan", ["plan", "refresh"], nil),
            ("visits (stale copy)", ["visits", "list", "--json"], nil), ("plan (stale copy)", ["plan", "show", "--json"], nil),
            ("coach context (stale copy)", ["coach", "context", "--refresh"], "supabase"),
        ]
        for read in networkReads {
            let failedBefore = Self.failedRefreshes(home: home.url)
            var result = try brados(read.arguments, server.url)
            if ["coach", "coach show", "visits (stale copy)", "plan (stale copy)"].contains(read.domain) {
                // A read with a copy shows it at once; its refresh behind meets the expired
                // session and records it, and the next read asks the server itself.
                #expect(result.status == 0, "\(read.domain): \(result.stderr)")
                #expect(await eventually(timeout: .seconds(30)) { Self.failedRefreshes(home: home.url) > failedBefore }, "\(read.domain)")
                result = try brados(read.arguments, server.url)
            }
            #expect(result.status == 4, "\(read.domain) exited \(result.status): \(result.stderr)")
            if let service = read.service {
                #expect(result.stderr.contains("The \(service) session of profile 'default' expired"), "\(read.domain): \(result.stderr)")
                #expect(result.stderr.contains("brados auth login --service \(service) "), "\(read.domain): \(result.stderr)")
            } else {
                #expect(result.stderr.contains("brados auth login --user NAME --password-stdin"), "\(read.domain): \(result.stderr)")
                #expect(!result.stderr.contains("--service"), "\(read.domain): \(result.stderr)")
            }
        }
    }

    /// How many background refreshes of the profile recorded a failure.
    static func failedRefreshes(home: URL) -> Int {
        let root = home.appendingPathComponent("cache/users/default")
        let domains = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return domains.reduce(0) { count, domain in
            count + ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(domain).path)) ?? []).filter { $0.hasSuffix(".failed") }.count
        }
    }

    @Test("messages say what happened: a failing Supabase is not 'offline mode'; settings and domains are named")
    func messages() async throws {
        let server = try ServerProcess()
        _ = try fill(server)
        try await server.addFault(#"{"match":"GET /rest/v1/conversations","status":503}"#)
        let sync = try brados(["sync", "--domains", "coach"], server.url)
        #expect(sync.status == 6, "\(sync.stderr)")
        #expect(!sync.stderr.contains("offline mode"), "\(sync.stderr)")
        #expect(sync.stderr.contains("503"), "\(sync.stderr)")
        try await server.clearFaults()

        // The same rule at `config set` and at read time.
        let zero = try brados(["config", "set", "plan.ttl", "0s"], server.url)
        #expect(zero.status == 64)
        #expect(zero.stderr.contains("Invalid value '0s' for plan.ttl: expected a duration above zero"), "\(zero.stderr)")
        let fromEnvironment = try BuiltProducts.run("brados", ["plan", "show"], environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "BRADOS_PLAN_TTL": "0s",
        ])
        #expect(fromEnvironment.status == 64)
        #expect(fromEnvironment.stderr.contains("Invalid value '0s' for BRADOS_PLAN_TTL"), "\(fromEnvironment.stderr)")
        #expect(fromEnvironment.stderr.contains("Fix or unset the environment variable BRADOS_PLAN_TTL."), "\(fromEnvironment.stderr)")

        // A bad network.timeout stops network commands with its name, never the commands that fix it.
        let environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "BRADOS_NETWORK_TIMEOUT": "0s"]
        #expect(try BuiltProducts.run("brados", ["config", "list"], environment: environment).status == 0)
        let network = try BuiltProducts.run("brados", ["visits", "list", "--refresh"], environment: environment)
        #expect(network.status == 64 && network.stderr.contains("BRADOS_NETWORK_TIMEOUT"), "\(network.stderr)")

        // An archive limit names its key and value, and how to fix it.
        let archive = home.url.appendingPathComponent("some.tar.zst")
        try Data("not an archive".utf8).write(to: archive)
        let limit = try BuiltProducts.run("brados", ["cache", "verify", archive.path], environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "BRADOS_ARCHIVE_MAX_RATIO": "1",
        ])
        #expect(limit.status == 64, "\(limit.stderr)")
        #expect(limit.stderr.contains("Invalid value '1' for BRADOS_ARCHIVE_MAX_RATIO: expected a number above 1."), "\(limit.stderr)")

        // An unknown domain lists the domains there are.
        let unknown = try brados(["cache", "clear", "nosuch"], server.url)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("There is no domain 'nosuch'."), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("Domains: mealplan, visits, library, coach, plan"), "\(unknown.stderr)")
        #expect(!unknown.stderr.contains("config list"), "\(unknown.stderr)")
    }
}
