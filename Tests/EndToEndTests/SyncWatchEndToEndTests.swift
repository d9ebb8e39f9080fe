import Foundation
import Testing
import TestSupport

/// `brados sync --watch` end to end: the built `brados` keeps a profile's caches following a
/// `brados-server` process while the test changes it: coach rows through its admin SQL route
/// and through its SQLite file from another process (Supabase Realtime), albums through
/// `/_admin/plex` (Plex notifications). Other commands read the caches meanwhile, offline,
/// without waiting for it.
@Suite("End to end: sync --watch", .serialized, .ownThread)
struct SyncWatchEndToEndTests {
    let home = TemporaryDirectory("e2e-sync-watch")
    let data = TemporaryDirectory("e2e-sync-watch-server")

    func environment(_ server: ServerProcess) -> [String: String] {
        ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "BRADOS_REALTIME_HEARTBEAT": "1"]
    }

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: environment(server), stdin: stdin)
    }

    func json(_ arguments: [String], _ server: ServerProcess) throws -> [String: Any] {
        let result = try brados(arguments + ["--json", "--offline"], server)
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    func titles(_ server: ServerProcess) throws -> [String: String] {
        let list = try json(["coach", "conversations"], server)["conversations"] as? [[String: Any]] ?? []
        return Dictionary(list.map { ($0["id"] as? String ?? "", $0["title"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
    }

    func messageIDs(_ id: String, _ server: ServerProcess) throws -> [String] {
        (try json(["coach", "show", id], server)["messages"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    func albumTitles(_ server: ServerProcess) throws -> [String: String] {
        let albums = try json(["library", "albums"], server)["albums"] as? [[String: Any]] ?? []
        return Dictionary(albums.map { ($0["ratingKey"] as? String ?? "", $0["title"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
    }

    func plex(_ change: String, _ server: ServerProcess) async throws {
        let response = try await server.request("POST", "/_admin/plex", headers: [("Content-Type", "application/json")], body: Data(change.utf8))
        #expect(response.status == 200)
    }

    @Test("coach rows (whoever writes them) and albums reach the caches as they change; other commands read them meanwhile; SIGTERM ends it")
    func watches() async throws {
        let server = try ServerProcess(dataDirectory: data.url)
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["library", "albums", "--limit", "1"], server).status == 0)
        let listed = try brados(["coach", "conversations", "--json"], server)
        let conversations = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])["conversations"] as? [[String: Any]]
        let ids = try #require(conversations?.compactMap { $0["id"] as? String })
        let (opened, renamed, deleted) = (ids[2], ids[3], ids[4])
        #expect(try brados(["coach", "show", opened, "--last", "1"], server).status == 0)

        let watch = try BuiltProducts.start("brados", ["sync", "--watch", "--verbose"], environment: environment(server))
        #expect(try await eventually(timeout: .seconds(30)) { try await server.realtimeChannels() == 1 }, "the coach joins its channel")

        // A message of a conversation whose messages are cached; a rename by another process; a delete.
        try await server.sql("""
            INSERT INTO messages (id, conversation_id, user_id, role, content, created_at)
            SELECT 'watched-1', id, user_id, 'user', 'seen by sync --watch', (julianday('now') - 2440587.5) * 86400.0 FROM conversations WHERE id = ?
            """, [opened])
        #expect(try await eventually(timeout: .seconds(30)) { try messageIDs(opened, server).last == "watched-1" })
        let python = Process()
        python.executableURL = try SystemCommand.url("python3")
        python.arguments = ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1], timeout=10); c.execute(\"UPDATE conversations SET title = 'Renamed elsewhere' WHERE id = ?\", (sys.argv[2],)); c.commit()",
                            data.url.appendingPathComponent("server.sqlite").path, renamed]
        try python.run()
        python.waitUntilExit()
        #expect(try await eventually(timeout: .seconds(30)) { try titles(server)[renamed] == "Renamed elsewhere" })
        try await server.sql("DELETE FROM conversations WHERE id = ?", [deleted])
        #expect(try await eventually(timeout: .seconds(30)) { try titles(server)[deleted] == nil && !titles(server).isEmpty })

        // Albums added, retitled and deleted on the Plex server.
        let at = Int(Date().timeIntervalSince1970)
        try await plex(#"{"add": [{"ratingKey": "880001", "title": "Watched Album", "artist": "Watcher", "year": 2026}], "at": \#(at)}"#, server)
        #expect(try await eventually(timeout: .seconds(30)) { try albumTitles(server)["880001"] == "Watched Album" })
        try await plex(#"{"retitle": {"880001": "Watched Album (Live)"}, "at": \#(at + 1)}"#, server)
        #expect(try await eventually(timeout: .seconds(30)) { try albumTitles(server)["880001"] == "Watched Album (Live)" })
        try await plex(#"{"delete": ["880001"], "at": \#(at + 2)}"#, server)
        #expect(try await eventually(timeout: .seconds(30)) { let albums = try albumTitles(server); return !albums.isEmpty && albums["880001"] == nil })

        #expect(watch.isRunning)
        watch.send(SIGTERM)
        let result = watch.finish()
        #expect(result.status == 143, "\(result.stderr)")
        #expect(result.stderr.contains("brados: info: coach.watch: caught up") && result.stderr.contains("brados: info: library.watch: caught up"), "\(result.stderr)")
        // --verbose here is one line an event, not the debug log it is elsewhere.
        #expect(!result.stderr.contains("brados: debug:") && !result.stderr.contains("brados: trace:"), "\(result.stderr)")
        #expect(result.stderr.contains("coach.watch: message") || result.stderr.contains("coach.watch: conversation"), "\(result.stderr)")
    }

    @Test("the embedded default: a message another process writes into the built-in backend's database reaches the cache")
    func embedded() async throws {
        let embeddedHome = TemporaryDirectory("e2e-sync-watch-embedded")
        let environment = ["BRADOS_HOME": embeddedHome.url.path, "HOME": embeddedHome.url.path, "BRADOS_REALTIME_HEARTBEAT": "1"]
        func run(_ arguments: [String]) throws -> BuiltProducts.Result { try BuiltProducts.run("brados", arguments, environment: environment) }
        let listed = try run(["coach", "conversations", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let conversations = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])["conversations"] as? [[String: Any]]
        let id = try #require(conversations?.first?["id"] as? String)
        #expect(try run(["coach", "show", id, "--last", "1"]).status == 0)
        let watch = try BuiltProducts.start("brados", ["sync", "--watch"], environment: environment)
        // Written into the backend's file by another process: the watch hears it (or its catch-up finds it).
        let database = embeddedHome.url.appendingPathComponent("data/users/default/.embedded/server.sqlite")
        #expect(FileManager.default.fileExists(atPath: database.path))
        let python = Process()
        python.executableURL = try SystemCommand.url("python3")
        python.arguments = ["-c", """
            import sqlite3,sys
            c=sqlite3.connect(sys.argv[1], timeout=10)
            c.execute("INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) SELECT 'embedded-1', id, user_id, 'user', 'written beside brados', (julianday('now') - 2440587.5) * 86400.0 FROM conversations WHERE id = ?", (sys.argv[2],))
            c.commit()
            """, database.path, id]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        #expect(try await eventually(timeout: .seconds(30)) {
            let shown = try run(["coach", "show", id, "--offline", "--json", "--last", "1"])
            return shown.stdout.contains("embedded-1")
        })
        watch.send(SIGTERM)
        #expect(watch.finish().status == 143)
    }
}
