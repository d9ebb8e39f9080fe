import Foundation
import Testing
import TestSupport

/// Signing in to Plex through plex.tv (the reference server's emulation of it), the three
/// ways Plex apps do: a code approved by another client, an existing token, a password.
@Suite("End to end: Plex sign-in through plex.tv", .serialized, .ownThread)
struct PlexSignInEndToEndTests {
    let home = TemporaryDirectory("e2e-plex-signin")

    func environment(_ server: ServerProcess) -> [String: String] {
        ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
         "BRADOS_PLEX_ACCOUNT_SERVER": server.url.absoluteString]
    }

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: environment(server), stdin: stdin)
    }

    func json(_ result: BuiltProducts.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout) \(result.stderr)")
    }

    /// The Plex session `auth status --json` shows.
    func plexSession(_ server: ServerProcess) throws -> [String: Any]? {
        (try json(try brados(["auth", "status", "--json"], server))["services"] as? [String: Any])?["plex"] as? [String: Any]
    }

    /// Another signed-in Plex client approves a code (as the user does on app.plex.tv).
    func approve(_ code: String, _ server: ServerProcess) async throws -> Int {
        let token = try await server.plexToken("demo")
        return try await server.request("PUT", "/api/v2/pins/link", headers: [("X-Plex-Token", token), ("X-Plex-Client-Identifier", "phone")],
                                        form: ["code": code]).status
    }

    /// Whether a waiting sign-in has asked plex.tv about its code at least once.
    func polled(_ server: ServerProcess) async throws -> Bool { try await server.stats().byRoute["GET /api/v2/pins/{id}"] ?? 0 >= 1 }

    @Test("a code: --no-wait prints it and exits; another client approves it; --pin resumes and saves the session")
    func pinApprovedByAnotherClient() async throws {
        let server = try ServerProcess()
        let started = try brados(["auth", "login", "--service", "plex", "--no-wait", "--json"], server)
        #expect(started.status == 0, "\(started.stderr)")
        let pin = try json(started)
        let id = try #require(pin["id"] as? String)
        let code = try #require(pin["code"] as? String)
        #expect(code.count == 25, "a strong pin")
        let link = try #require(pin["url"] as? String)
        #expect(link.hasPrefix("https://app.plex.tv/auth#?clientID=brados-"))
        #expect(link.contains("code=\(code)") && link.contains("context%5Bdevice%5D%5Bproduct%5D=brados"))

        // Waiting: the resumed sign-in polls until the code is approved.
        let waiting = try BuiltProducts.start("brados", ["auth", "login", "--service", "plex", "--pin", id], environment: environment(server))
        #expect(try await eventually { try await polled(server) }, "it asks plex.tv about the code")
        #expect(waiting.isRunning, "it waits for the approval")
        #expect(try await approve(code, server) == 204)
        let done = waiting.finish(timeout: 20)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.contains("Signed in as demo on \(server.url.absoluteString)"), "\(done.stdout)")
        let session = try #require(try plexSession(server))
        #expect(session["user"] as? String == "demo")
        #expect(session["server"] as? String == server.url.absoluteString)
        // The account token works at plex.tv, and the credentials file is the only place it is.
        let stats = try await server.stats().byRoute
        #expect(stats["POST /api/v2/pins"] == 1)
        #expect(stats["GET /api/v2/pins/{id}"] ?? 0 >= 2, "polled until approved")
    }

    @Test("the default flow prints the code and link on stderr in a script, and Ctrl-C stops the wait (exit 130, nothing saved)")
    func pinWaitInterrupted() async throws {
        let server = try ServerProcess()
        let waiting = try BuiltProducts.start("brados", ["auth", "login", "--service", "plex"], environment: environment(server))
        // Polling: the code was printed before the first poll.
        #expect(try await eventually { try await polled(server) })
        waiting.send(SIGINT)
        let result = waiting.finish(timeout: 20)
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("sign in to plex: approve code "), "\(result.stderr)")
        #expect(result.stderr.contains("at https://app.plex.tv/auth#?clientID="))
        #expect(try plexSession(server) == nil)
    }

    @Test("an expired code: exit 4 with 'start again'")
    func pinExpired() async throws {
        let server = try ServerProcess(extraArguments: ["--plex-pin-lifetime", "1"])
        let pin = try json(try brados(["auth", "login", "--service", "plex", "--no-wait", "--json"], server))
        let id = try #require(pin["id"] as? String)
        // Until plex.tv says the code is gone (its lifetime here is 1 s).
        #expect(try await eventually { try await server.request("GET", "/api/v2/pins/\(id)").status == 404 })
        let result = try brados(["auth", "login", "--service", "plex", "--pin", id], server)
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("expired before it was approved"))
        #expect(result.stderr.contains("brados auth login --service plex"))
    }

    @Test("--token-stdin: a token from another Plex app is checked at plex.tv before it is saved; a refused one saves nothing")
    func tokenFromStdin() async throws {
        let server = try ServerProcess()
        let refused = try brados(["auth", "login", "--service", "plex", "--token-stdin"], server, stdin: "not-a-token\n")
        #expect(refused.status == 4)
        #expect(refused.stderr.contains("refused the token"), "\(refused.stderr)")
        #expect(try plexSession(server) == nil)
        let empty = try brados(["auth", "login", "--service", "plex", "--token-stdin"], server, stdin: "")
        #expect(empty.status == 64)

        let token = try await server.plexToken("demo")
        let result = try brados(["auth", "login", "--service", "plex", "--token-stdin"], server, stdin: token + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try plexSession(server)?["user"] as? String == "demo")
        let credentials = try String(contentsOf: home.url.appendingPathComponent("config/credentials/default.json"), encoding: .utf8)
        #expect(credentials.contains(token))
        #expect(try await server.stats().byRoute["GET /api/v2/user"] == 2, "both tokens were checked at plex.tv")

        // Signing out signs out at plex.tv: the token stops working there.
        let logout = try brados(["auth", "logout", "--json"], server)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stdout.contains("\"revokedOnServer\" : true") || logout.stdout.contains("\"revokedOnServer\":true"), "\(logout.stdout)")
        #expect(try await server.stats().byRoute["DELETE /api/v2/users/signout"] == 1)
        #expect(try await server.request("GET", "/api/v2/user", headers: [("X-Plex-Token", token)]).status == 401)
        #expect(try plexSession(server) == nil)
    }

    @Test("--user and --password-stdin at plex.tv; a wrong password; a two-factor account needs --code")
    func passwordAndTwoFactor() async throws {
        let server = try ServerProcess()
        let wrong = try brados(["auth", "login", "--service", "plex", "--user", "demo", "--password-stdin"], server, stdin: "nope")
        #expect(wrong.status == 4)
        #expect(wrong.stderr.contains("rejected the password for 'demo'"), "\(wrong.stderr)")
        let signedIn = try brados(["auth", "login", "--service", "plex", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo\n")
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(try plexSession(server)?["user"] as? String == "demo")
        #expect(try await server.stats().byRoute["POST /api/v2/users/signin"] == 2)
        #expect(try await server.stats().byRoute["POST /api/auth/login"] == nil, "nothing goes to the BradOS sign-in route")

        #expect(try await server.request("POST", "/_admin/plex/two-factor?user=alice&code=424242").status == 204)
        let needsCode = try brados(["auth", "login", "--service", "plex", "--user", "alice", "--password-stdin"], server, stdin: "alice")
        #expect(needsCode.status == 4)
        #expect(needsCode.stderr.contains("two-factor authentication"), "\(needsCode.stderr)")
        #expect(needsCode.stderr.contains("--code"))
        let badCode = try brados(["auth", "login", "--service", "plex", "--user", "alice", "--password-stdin", "--code", "111111"], server, stdin: "alice")
        #expect(badCode.status == 4)
        #expect(badCode.stderr.contains("refused the verification code"), "\(badCode.stderr)")
        #expect(try plexSession(server)?["user"] as? String == "demo", "a failed sign-in keeps the session")
        let good = try brados(["auth", "login", "--service", "plex", "--user", "alice", "--password-stdin", "--code", "424242"], server, stdin: "alice")
        #expect(good.status == 0, "\(good.stderr)")
        #expect(try plexSession(server)?["user"] as? String == "alice")
    }

    @Test("server.plex and --token-stdin: the token is checked on that server and used there alone, plex.tv never asked; `library servers` says why it lists nothing; a revoked token says sign in again")
    func directServer() async throws {
        let server = try ServerProcess()
        // plex.tv is a closed port: any request to it would fail the commands below.
        // The BradOS server is a closed port too: only the direct path can work.
        let direct = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": "http://127.0.0.1:9",
                      "BRADOS_PLEX_SERVER": server.url.absoluteString, "BRADOS_PLEX_ACCOUNT_SERVER": "http://127.0.0.1:9"]
        func run(_ arguments: [String], stdin: String? = nil) throws -> BuiltProducts.Result {
            try BuiltProducts.run("brados", arguments, environment: direct, stdin: stdin)
        }
        let refused = try run(["auth", "login", "--service", "plex", "--token-stdin"], stdin: "not-a-token\n")
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(refused.stderr.contains("refused the token"), "\(refused.stderr)")
        #expect(try plexSession(server) == nil)

        let token = try await server.plexToken("demo")
        let signedIn = try run(["auth", "login", "--service", "plex", "--token-stdin"], stdin: token + "\n")
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(signedIn.stdout.contains("Signed in as demo on \(server.url.absoluteString)"), "\(signedIn.stdout)")
        #expect(signedIn.stderr.contains("checking the token with the server at \(server.url.absoluteString) (server.plex), not http://127.0.0.1:9"),
                "where the token goes is said: \(signedIn.stderr)")
        let albums = try run(["library", "albums", "--refresh", "--json"])
        #expect(albums.status == 0, "\(albums.stderr)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(albums.stdout.utf8)) as? [String: Any])
        #expect((listed["albums"] as? [Any])?.isEmpty == false, "\(albums.stdout.prefix(300))")
        let byRoute = try await server.stats().byRoute
        #expect(byRoute["GET /"] == 2, "the refused token and the good one were checked on the media server")
        #expect(byRoute["GET /library/sections"] ?? 0 >= 1)
        // The one plex.tv request is the test's own (it got the token as another app would).
        #expect(byRoute.filter { $0.key.contains("/api/v2/") } == ["POST /api/v2/users/signin": 1], "nothing else went to plex.tv routes: \(byRoute)")

        let servers = try run(["library", "servers"])
        #expect(servers.status == 64)
        #expect(servers.stderr.contains("directly (server.plex)"), "\(servers.stderr)")
        // Another server.plex: the token stays with the server that took it.
        var elsewhere = direct
        elsewhere["BRADOS_PLEX_SERVER"] = "http://127.0.0.1:9"
        let moved = try BuiltProducts.run("brados", ["library", "albums", "--refresh"], environment: elsewhere)
        #expect(moved.status == 4, "\(moved.stderr)")
        #expect(moved.stderr.contains("is signed in to \(server.url.absoluteString), but the plex service now uses http://127.0.0.1:9"), "\(moved.stderr)")

        // Signing out of a direct session asks nobody (a media server has no sign-out route).
        try await server.resetStats()
        let logout = try run(["auth", "logout", "--json"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(try await server.stats().byRoute.isEmpty, "no request at sign-out")
        #expect(try plexSession(server) == nil)
        #expect(try run(["auth", "login", "--service", "plex", "--token-stdin"], stdin: token).status == 0)

        #expect(try await server.request("POST", "/_admin/plex/revoke?user=demo").status == 204)
        let revoked = try run(["library", "albums", "--refresh"])
        #expect(revoked.status == 4, "\(revoked.stderr)")
        #expect(revoked.stderr.contains("sign in to plex again"), "\(revoked.stderr)")
    }

    @Test("wrong flags are usage errors (64) that say what goes with what")
    func flags() throws {
        let server = try ServerProcess()
        let cases: [([String], String)] = [
            (["auth", "login", "--service", "plex", "--token-stdin", "--user", "demo"], "--token-stdin signs in with the token alone"),
            (["auth", "login", "--token-stdin"], "--token-stdin, --pin and --no-wait sign in to a service with an account server (--service plex)"),
            (["auth", "login", "--service", "plex", "--pin", "1", "--no-wait"], "--pin resumes a code sign-in"),
            (["auth", "login", "--service", "plex", "--code", "1"], "--code goes with --user"),
            (["auth", "login", "--user", "demo"], "--password-stdin"),
            (["auth", "login"], "Pass --user NAME"),
        ]
        for (arguments, message) in cases {
            let result = try brados(arguments, server)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}

/// The account's servers through plex.tv: listing, choosing, connecting the way Plex clients
/// do, each server's own token, and a revoked token.
@Suite("End to end: Plex servers and connections through plex.tv", .serialized, .ownThread)
struct PlexServersEndToEndTests {
    let home = TemporaryDirectory("e2e-plex-servers")

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
            "BRADOS_PLEX_ACCOUNT_SERVER": server.url.absoluteString,
        ], stdin: stdin)
    }

    @Test("servers lists both (connections local, remote, relay); several servers need `use`; the refused local address is skipped and the choice remembered; a shared server gets its own token; a revoked token says sign in again")
    func serversAndConnections() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--service", "plex", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let listed = try brados(["library", "servers", "--json"], server)
        #expect(listed.status == 0, "\(listed.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == ["brados reference", "Alice's Music"], "servers only: the player is left out")
        let own = try #require(rows.first)
        #expect(own["owned"] as? Bool == true)
        let uris = (own["connections"] as? [[String: Any]] ?? []).map { $0["uri"] as? String ?? "" }
        let port = server.url.port ?? 0
        #expect(uris == ["http://127.0.0.2:\(port)", "http://127.0.0.1:\(port)", "http://127.0.0.1:\(port)/relay"], "local, remote, relay")
        #expect(rows.last?["sharedBy"] as? String == "alice")

        let ambiguous = try brados(["library", "albums"], server)
        #expect(ambiguous.status == 64)
        #expect(ambiguous.stderr.contains("brados library use \"Alice's Music\""), "\(ambiguous.stderr)")

        let used = try brados(["library", "use", "BRADOS REFERENCE", "--json"], server)
        #expect(used.status == 0, "\(used.stderr)")
        let usedObject = try #require(try JSONSerialization.jsonObject(with: Data(used.stdout.utf8)) as? [String: Any])
        #expect(usedObject["uri"] as? String == "http://127.0.0.1:\(port)", "the refused local address is passed over: \(used.stdout)")
        let probes = try await server.stats().byRoute["GET /identity"] ?? 0
        #expect(probes >= 1)
        let albums = try brados(["-v", "library", "albums", "--refresh", "--json"], server)
        #expect(albums.status == 0, "\(albums.stderr)")
        #expect(!albums.stderr.contains("probing"), "the answered address is remembered: nothing is probed again")
        #expect(!albums.stderr.contains("127.0.0.2"))
        #expect(try await server.stats().byRoute["GET /identity"] ?? 0 == probes)

        let albumList = try #require(try JSONSerialization.jsonObject(with: Data(albums.stdout.utf8)) as? [String: Any])
        let withArt = try #require((albumList["albums"] as? [[String: Any]])?.first { $0["thumb"] is String }?["ratingKey"] as? String)
        func artwork() throws -> [String: Any] {
            let result = try brados(["library", "artwork", withArt, "--json"], server)
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        }
        #expect(try artwork()["cached"] as? Bool == false)
        #expect(try artwork()["cached"] as? Bool == true)
        #expect(try brados(["library", "albums", "--offline"], server).status == 0, "this server's snapshot shows offline")

        // The shared server takes only its own token (not demo's account token): it answers.
        #expect(try brados(["library", "use", "Alice's Music"], server).status == 0)
        // Its albums share rating keys and paths with demo's server: nothing of that one shows.
        let before = try brados(["library", "albums", "--offline"], server)
        #expect(before.status != 0, "no snapshot of this server yet: \(before.stdout.prefix(200))")
        #expect(try artwork()["cached"] as? Bool == false, "another server's image is fetched, not taken from demo's")
        let shared = try brados(["library", "albums", "--refresh", "--json"], server)
        #expect(shared.status == 0, "\(shared.stderr)")
        let attachment = try String(contentsOf: home.url.appendingPathComponent("config/credentials/default.d/plex.server.json"), encoding: .utf8)
        let session = try String(contentsOf: home.url.appendingPathComponent("config/credentials/default.json"), encoding: .utf8)
        let sessionObject = try #require(try JSONSerialization.jsonObject(with: Data(session.utf8)) as? [String: Any])
        let accountToken = try #require(((sessionObject["services"] as? [String: Any])?["plex"] as? [String: Any])?["accessToken"] as? String)
        #expect(!attachment.contains(accountToken), "the media server has its own token")
        let byRoute = try await server.stats().byRoute
        #expect(byRoute.keys.contains { $0.hasPrefix("GET /shared/alice/library/sections") }, "\(byRoute.keys.sorted())")
        #expect(byRoute.keys.contains { $0.hasPrefix("GET /shared/alice/photo") }, "\(byRoute.keys.sorted())")
        // Back to demo's server: its images are still cached; the one snapshot is Alice's server's now, so none shows.
        #expect(try brados(["library", "use", "brados reference"], server).status == 0)
        #expect(try artwork()["cached"] as? Bool == true)
        #expect(try brados(["library", "albums", "--offline"], server).status != 0)

        #expect(try await server.request("POST", "/_admin/plex/revoke?user=demo").status == 204)
        let revoked = try brados(["library", "albums", "--refresh"], server)
        #expect(revoked.status == 4)
        #expect(revoked.stderr.contains("sign in to plex again"), "\(revoked.stderr)")
        #expect(revoked.stderr.contains("brados auth login --service plex"))
    }

    @Test("the remembered address stops answering: the addresses are probed once more and the next that answers is used; when none answers, exit 5 naming them")
    func reprobe() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--service", "plex", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["library", "use", "brados reference"], server).status == 0)
        let file = home.url.appendingPathComponent("config/credentials/default.d/plex.server.json")
        func edit(_ change: (inout [String: Any]) -> Void) throws {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            change(&object)
            try JSONSerialization.data(withJSONObject: object).write(to: file)
        }
        func working() throws -> String? {
            (try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])?["working"] as? String
        }
        let port = server.url.port ?? 0
        // As if the server's remembered address went away (a new IP, a stopped port forward).
        try edit { $0["working"] = "http://127.0.0.2:\(port)" }
        let probes = try await server.stats().byRoute["GET /identity"] ?? 0
        let again = try brados(["-v", "library", "albums", "--refresh", "--json"], server)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stderr.contains("retrying"), "the dead address is not retried: the others are probed at once\n\(again.stderr)")
        #expect(again.stderr.components(separatedBy: "connected to Plex server").count == 2, "one re-probe serves every request after it")
        #expect(try await server.stats().byRoute["GET /identity"] ?? 0 > probes, "probed again")
        #expect(try working() == "http://127.0.0.1:\(port)", "the address that answered is remembered")

        // No address answers any more.
        try edit { object in
            object["working"] = "http://127.0.0.2:\(port)"
            object["connections"] = [["uri": "http://127.0.0.2:\(port)", "local": true, "relay": false, "protocol": "http"]]
        }
        let gone = try brados(["library", "albums", "--refresh"], server)
        #expect(gone.status == 5, "\(gone.stderr)")
        #expect(gone.stderr.contains("did not answer at any of its 1 addresses (http://127.0.0.2:\(port))"), "\(gone.stderr)")
        #expect(gone.stderr.contains("tries its addresses again on the next command"))
    }
}
