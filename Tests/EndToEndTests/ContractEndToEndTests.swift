import Foundation
import Testing
import TestSupport

/// The plugin contract (issue 17): `brados-contract` is brados plus a sixth domain, `places`,
/// added in one folder (Tests/ContractDomain/Places) and one registry line, with no edit of
/// the core. Everything the core offers a domain must work for it.
@Suite("End to end: the plugin contract (a sixth domain)", .serialized, .ownThread)
struct ContractEndToEndTests {
    let home = TemporaryDirectory("e2e-contract")
    let other = TemporaryDirectory("e2e-contract-other")

    func run(_ arguments: [String], _ server: URL, home: TemporaryDirectory? = nil, stdin: String? = nil,
             extra: [String: String] = [:]) throws -> BuiltProducts.Result {
        let home = home ?? self.home
        return try BuiltProducts.run("brados-contract", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.absoluteString,
        ].merging(extra) { $1 }, stdin: stdin)
    }

    func json(_ result: BuiltProducts.Result) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    var placesFile: URL { home.url.appendingPathComponent("cache/users/default/places/places.json") }

    @Test("help, config, reads with the shared source, stats, sync flags, export/clear/import, completion and logout")
    func sixthDomain() async throws {
        let server = try ServerProcess()
        #expect(try run(["auth", "login", "--user", "demo", "--password-stdin"], server.url, stdin: "demo").status == 0)

        // Help and config: the domain, its setting and its sync flag appear with no core edit.
        let help = try run(["--help"], server.url)
        #expect(help.stdout.contains("places") && help.stdout.contains("Places you visited"))
        #expect(try run(["sync", "--help"], server.url).stdout.contains("--places"))
        #expect(try run(["config", "list"], server.url).stdout.contains("places.ttl"))
        let badTTL = try run(["config", "set", "places.ttl", "soon"], server.url)
        #expect(badTTL.status == 64 && badTTL.stderr.contains("for places.ttl"))

        // A read: the network first, then the cache, with the shared source object.
        let first = try run(["places", "--json"], server.url)
        #expect(first.status == 0, "\(first.stderr)")
        let document = try #require(try json(first) as? [String: Any])
        #expect((document["source"] as? [String: Any])?["kind"] as? String == "network")
        let places = try #require(document["places"] as? [[String: Any]])
        #expect(!places.isEmpty)
        let second = try #require(try json(try run(["places", "--json"], server.url)) as? [String: Any])
        #expect(Set((second["source"] as? [String: Any])?.keys.map { $0 } ?? []) == ["kind", "ageSeconds", "stale", "refreshing", "reason", "notice"])
        #expect((second["source"] as? [String: Any])?["kind"] as? String == "cache")

        // Stale and the server failing: the cache, one notice, exit 0.
        try await server.addFault(#"{"match":"GET /api/visits","status":503}"#)
        let stale = try run(["places", "--json"], server.url, extra: ["BRADOS_PLACES_TTL": "0s"])
        #expect(stale.status == 0, "\(stale.stderr)")
        #expect(stale.stderr.split(separator: "\n").filter { $0.hasPrefix("brados: showing cached places") }.count == 1, "\(stale.stderr)")
        #expect(((try json(stale) as? [String: Any])?["source"] as? [String: Any])?["stale"] as? Bool == true)
        try await server.clearFaults()

        // Stats and sync (with its own flag; without it the domain is skipped).
        let stats = try #require((try json(try run(["cache", "stats", "--json"], server.url)) as? [String: Any])?["domains"] as? [[String: Any]])
        #expect(stats.first { $0["domain"] as? String == "places" }?["files"] as? Int == 1)
        let skipped = try #require(try json(try run(["sync", "--domains", "places", "--json"], server.url)) as? [[String: Any]])
        #expect(skipped.first?["status"] as? String == "skipped")
        let synced = try #require(try json(try run(["sync", "--domains", "places", "--places", "--json"], server.url)) as? [[String: Any]])
        #expect(synced.first?["status"] as? String == "ok")
        #expect(try run(["sync", "--nonsense"], server.url).status == 64)

        // Completion: the commands in every shell, and the cached names as values.
        for shell in ["bash", "zsh", "fish"] {
            #expect(try run(["--generate-completion-script", shell], server.url).stdout.contains("places"), "\(shell)")
        }
        let name = try #require(places.first?["name"] as? String)
        let completion = try run(["---completion", "places", "show", "--", "positional@0", "3", "0", "brados-contract", "places", "show", ""], server.url)
        #expect(completion.stdout.contains(name), "\(completion.stdout) \(completion.stderr)")
        // The sync flag the domain declared completes too, next to the built-in domains' own.
        let syncFlags = try run(["---completion", "sync", "--", "positional@0", "2", "2", "brados-contract", "sync", "--"], server.url)
        #expect(syncFlags.stdout.split(separator: "\n").contains("--places") && syncFlags.stdout.contains("--mealplan"), "\(syncFlags.stdout) \(syncFlags.stderr)")

        // Export, clear and import.
        let archive = home.url.appendingPathComponent("backup.tar.zst")
        #expect(try run(["cache", "export", "--domains", "places", "-o", archive.path], server.url).status == 0)
        #expect(try run(["cache", "clear", "places"], server.url).status == 0)
        #expect(!FileManager.default.fileExists(atPath: placesFile.path))
        let imported = try run(["cache", "import", archive.path], server.url)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(FileManager.default.fileExists(atPath: placesFile.path))
        let offline = try run(["--offline", "places", "show", name], server.url)
        #expect(offline.status == 0 && offline.stdout.contains(name), "\(offline.stderr)")

        // Logout erases it.
        #expect(try run(["auth", "logout"], server.url).status == 0)
        #expect(!FileManager.default.fileExists(atPath: placesFile.path))
    }

    @Test("today and search: the sixth domain's section and documents appear through the two optional requirements; brados without it is unchanged")
    func todayAndSearch() async throws {
        let server = try ServerProcess()
        #expect(try run(["auth", "login", "--user", "demo", "--password-stdin"], server.url, stdin: "demo").status == 0)
        let empty = try run(["today"], server.url)
        #expect(empty.status == 0 && empty.stdout.contains("Places  nothing cached · brados places"), "\(empty.stdout)")
        let places = try #require((try json(try run(["places", "--json"], server.url)) as? [String: Any])?["places"] as? [[String: Any]])
        let top = try #require(places.first?["name"] as? String)
        let today = try #require(try json(try run(["today", "--json"], server.url)) as? [String: Any])
        #expect(((today["places"] as? [String: Any])?["mostVisited"] as? [String: Any])?["name"] as? String == top, "\(today)")
        let hits = try #require((try json(try run(["search", "\"\(top)\"", "--domain", "places", "--json"], server.url)) as? [String: Any])?["results"] as? [[String: Any]])
        #expect(hits.first?["id"] as? String == "place:\(top)" && (hits.first?["command"] as? String)?.hasPrefix("brados places show") == true, "\(hits)")
        let completion = try run(["---completion", "search", "--", "--domain", "2", "0", "brados-contract", "search", "--domain", ""], server.url)
        let values = Set(completion.stdout.split(separator: "\n").map(String.init))
        #expect(values.contains("places") && values.contains("coach") && !values.contains("plan"), "\(completion.stdout)")

        // brados itself (no places plugin): no such section, no such domain.
        let plain = try BuiltProducts.run("brados", ["today", "--json"], environment: ["BRADOS_HOME": home.url.path, "HOME": home.url.path,
                                                                                          "BRADOS_SERVER": server.url.absoluteString])
        #expect(plain.status == 0 && !plain.stdout.contains("\"places\""), "\(plain.stdout)")
        #expect(try BuiltProducts.run("brados", ["search", "x", "--domain", "places"], environment: ["BRADOS_HOME": home.url.path, "HOME": home.url.path]).status == 64)
    }
}
