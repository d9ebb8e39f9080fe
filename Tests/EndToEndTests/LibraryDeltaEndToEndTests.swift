import Foundation
import Testing
import TestSupport

/// The library's delta refresh end to end: random adds, retitles, deletes and Plex's own
/// no-op `touch`es made on a `brados-server` process (`/_admin/plex`) between refreshes of the
/// built `brados`; after each refresh the snapshot must equal the server's listing (rating
/// keys, titles, order). 25 rounds here, `BRADOS_DELTA_ROUNDS` more.
@Suite("End to end: library delta refresh", .serialized)
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
}
