import Foundation
import Testing
import TestSupport

/// The library's delta refresh end to end: random adds, retitles, deletes and Plex's own
/// no-op `touch`es made on a `brados-server` process (`/_admin/plex`) between refreshes of the
/// built `brados`; after each refresh the snapshot must equal the server's listing (rating
/// keys, titles, order). 25 rounds here, `BRADOS_DELTA_ROUNDS` more.
@Suite("End to end: library delta refresh", .serialized, .ownThread)
struct LibraryDeltaEndToEndTests {
    let home = TemporaryDirectory("e2e-library-delta")

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ], stdin: stdin)
    }

    func local(_ server: ServerProcess) throws -> [[String]] {
        let result = try brados(["library", "albums", "--refresh", "--json"], server)
        #expect(result.status == 0, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (document["albums"] as? [[String: Any]] ?? []).map { [$0["ratingKey"] as? String ?? "", $0["title"] as? String ?? ""] }
    }

    func remote(_ server: ServerProcess, token: String) async throws -> [[String]] {
        let response = try await server.request("GET", "/library/sections/1/all?type=9", headers: [("X-Plex-Token", token), ("Accept", "application/json")])
        let container = try #require((try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["MediaContainer"] as? [String: Any])
        return (container["Metadata"] as? [[String: Any]] ?? []).map { [$0["ratingKey"] as? String ?? "", $0["title"] as? String ?? ""] }
    }

    /// A query's rows from the profile's library store, as `a|b` lines.
    func store(_ sql: String) throws -> String {
        let python = Process(), pipe = Pipe()
        python.executableURL = try SystemCommand.url("python3")
        python.arguments = ["-c", "import sqlite3,sys; print('\\n'.join('|'.join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))",
                            home.url.appendingPathComponent("data/users/default/library/library.sqlite").path, sql]
        python.standardOutput = pipe
        try python.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func change(_ server: ServerProcess, _ body: [String: Any]) async throws {
        _ = try await server.request("POST", "/_admin/plex", headers: [("Content-Type", "application/json")],
                                     body: try JSONSerialization.data(withJSONObject: body))
    }

    @Test("random changes on the server between refreshes: the snapshot always ends equal, at the cost of what changed")
    func randomized() async throws {
        let server = try ServerProcess(extraArguments: ["--seed-albums", "1500"])
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let token = try await server.plexToken()
        let rounds = ProcessInfo.processInfo.environment["BRADOS_DELTA_ROUNDS"].flatMap(Int.init) ?? 25
        var random = SystemRandomNumberGenerator()
        #expect(try local(server) == (try await remote(server, token: token)))
        var at = 1_800_000_000
        var next = 90_000
        for round in 0..<rounds {
            let keys = try await remote(server, token: token).map { $0[0] }
            var body: [String: Any] = [:]
            let count = Int.random(in: 0...4, using: &random)
            if count > 0 {
                at += Int.random(in: 0...2, using: &random) // several changes in one second on purpose
                var adds: [[String: Any]] = [], retitles: [String: String] = [:], deletes: [String] = [], touches: [String] = []
                for _ in 0..<count {
                    next += 1
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: adds.append(["ratingKey": "\(next)", "title": "Added \(next)", "artist": "Air", "year": 2020,
                                         "addedAt": Int.random(in: 1_600_000_000...at, using: &random)])
                    case 1: if let key = keys.randomElement(using: &random) { retitles[key] = "Retitled \(next)" }
                    case 2: if let key = keys.randomElement(using: &random) { deletes.append(key) }
                    default: if let key = keys.randomElement(using: &random) { touches.append(key) }
                    }
                }
                body = ["at": at, "add": adds, "retitle": retitles, "delete": deletes, "touch": touches]
                try await change(server, body)
            }
            #expect(try local(server) == (try await remote(server, token: token)), "round \(round): \(body)")
            // The search index holds exactly what the store holds, after every kind of change.
            #expect(try brados(["search", "zzzz", "--domain", "library"], server).status == 0)
            #expect(try SearchIndexCheck.indexed(home: home.url, domain: "library") == (try SearchIndexCheck.libraryCache(home: home.url)), "round \(round)")
        }

        // Nothing changed: one request. A touch (Plex's own no-op update): the changes are asked
        // for, but nothing people see changed, so the generation and the save time stay.
        try await server.resetStats()
        _ = try local(server)
        #expect(try await server.stats().total == 1)
        let before = try store("SELECT generation, savedAt FROM snapshot")
        try await change(server, ["at": at + 10, "touch": [try #require(try await remote(server, token: token).first?[0])]])
        try await server.resetStats()
        _ = try local(server)
        #expect(try await server.stats().total > 1, "the touch moved contentChangedAt: the changes were asked for")
        #expect(try store("SELECT generation, savedAt FROM snapshot") == before)
        #expect(try store("SELECT count(*) FROM album WHERE shown = 1") == "\(try await remote(server, token: token).count)")
    }

    /// Cost of one `library albums --refresh` after `body` (made at the server's time now): requests and bytes.
    func refreshCost(_ server: ServerProcess, after body: [String: Any]) async throws -> (requests: Int, bytes: Int) {
        var body = body
        body["at"] = Int(Date().timeIntervalSince1970)
        try await change(server, body)
        try await server.resetStats()
        _ = try local(server)
        let stats = try await server.stats()
        return (stats.total, stats.bytes)
    }

    @Test("a bulk import (thousands of albums in one second), real-shaped: changes cost what changed; deletions among them never cost more than starting over")
    func bulkSecond() async throws {
        let server = try ServerProcess(extraArguments: ["--seed-albums", "3000", "--seed-albums-per-second", "3000", "--real-albums"])
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let token = try await server.plexToken()
        try await server.resetStats()
        _ = try local(server)
        let whole = try await server.stats().bytes
        #expect(whole > 3000 * 600, "real-shaped albums: \(whole) bytes for 3,000")
        let keys = try await remote(server, token: token).map { $0[0] }

        // 5 retitles and 3 adds: the albums that changed, not the import's second again.
        let adds: [[String: Any]] = (0..<3).map { ["ratingKey": "\(95_000 + $0)", "title": "Added \($0)", "artist": "Air", "year": 2024] }
        let retitles = Dictionary(uniqueKeysWithValues: keys.prefix(5).map { ($0, "Retitled \($0)") })
        let edits = try await refreshCost(server, after: ["add": adds, "retitle": retitles])
        #expect(try local(server) == (try await remote(server, token: token)))
        #expect(edits.bytes < 30_000, "8 changes: \(edits.bytes) bytes, \(edits.requests) requests (the whole section is \(whole))")

        // 2 deletions inside the import's second, which no count can split: at most a download of everything.
        let deletions = try await refreshCost(server, after: ["delete": Array(keys.suffix(2))])
        #expect(try local(server) == (try await remote(server, token: token)))
        #expect(deletions.bytes <= whole + whole / 50, "\(deletions.bytes) bytes against \(whole) for starting over")
    }

    @Test("albums spread as a scan leaves them (4 a second), real-shaped: each deletion costs about 16 KB, not a leaf of 100 albums")
    func scanLeaves() async throws {
        let server = try ServerProcess(extraArguments: ["--seed-albums", "4000", "--seed-albums-per-second", "4", "--real-albums"])
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let token = try await server.plexToken()
        _ = try local(server)
        let keys = try await remote(server, token: token).map { $0[0] }
        // Five albums spread over the listing (titles are not in added order, so neither are these).
        let deleted = [3, 5, 7, 11, 13].map { keys[keys.count * $0 / 17] }
        let cost = try await refreshCost(server, after: ["delete": deleted, "retitle": [keys[10]: "Retitled"]])
        #expect(try local(server) == (try await remote(server, token: token)))
        // 5 deletions and 1 retitle: about 16 KB each, and a constant (the sections, the count, the collections).
        #expect(cost.bytes <= 6 * 16_384 + 24_576, "\(cost.bytes) bytes, \(cost.requests) requests")
    }
}
