import Foundation
import Testing
import TestSupport

/// Runs the built `brados` against a real `brados-server` process on loopback.
@Suite("End to end: auth, offline, retries, embedded default", .serialized, .ownThread)
struct FoundationEndToEndTests {
    let home = TemporaryDirectory("e2e")

    func brados(_ arguments: [String], server: ServerProcess?, stdin: String? = nil, extra: [String: String] = [:]) throws -> BuiltProducts.Result {
        var environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path]
        if let server { environment["BRADOS_SERVER"] = server.url.absoluteString }
        return try BuiltProducts.run("brados", arguments, environment: environment.merging(extra) { _, new in new }, stdin: stdin)
    }

    var credentialsFile: URL { home.url.appendingPathComponent("config/credentials/default.json") }

    @Test("--help lists the core commands and, apart, the domain group; a wrong flag is a usage error")
    func help() throws {
        let result = try brados(["--help"], server: nil)
        #expect(result.status == 0)
        let parts = result.stdout.components(separatedBy: "DOMAINS SUBCOMMANDS:")
        #expect(parts.count == 2)
        for command in ["auth", "config", "cache"] { #expect(parts[0].contains("\n  \(command) ")) }
        #expect(parts[1].contains("\n  mealplan "))
        // `brados --help` and `--version` skip the parser; with a global flag first they do
        // not, and the text must be the same either way.
        #expect(try brados(["--offline", "--help"], server: nil).stdout == result.stdout)
        let version = try brados(["--version"], server: nil)
        #expect(version.status == 0)
        #expect(!version.stdout.isEmpty)
        #expect(try brados(["--offline", "--version"], server: nil).stdout == version.stdout)
        let wrong = try brados(["auth", "status", "--no-such-flag"], server: nil)
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("Unknown option"))
        let noPassword = try brados(["auth", "login", "--user", "demo"], server: nil)
        #expect(noPassword.status == 64)
        #expect(noPassword.stderr.contains("--password-stdin"))
    }

    @Test("login, status, logout against brados-server; logout erases the profile")
    func loginStatusLogout() async throws {
        let server = try ServerProcess()
        let bad = try brados(["auth", "login", "--user", "demo", "--password-stdin"], server: server, stdin: "wrong\n")
        #expect(bad.status == 4)
        #expect(bad.stderr.contains("rejected the password"))

        let login = try brados(["auth", "login", "--user", "demo", "--password-stdin"], server: server, stdin: "demo\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in as demo"))
        let mode = try FileManager.default.attributesOfItem(atPath: credentialsFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let token = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: credentialsFile)) as? [String: Any])
        let access = try #require((token["account"] as? [String: Any])?["accessToken"] as? String)

        let status = try brados(["auth", "status", "--check", "--verbose"], server: server)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("Verified with the server: demo"))
        #expect(!status.stderr.contains(access), "a token leaked into the logs")

        // Something cached for the profile, and another profile's data that must survive.
        let cache = home.url.appendingPathComponent("cache/users/default/somedomain")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: cache.appendingPathComponent("file.json"))
        let otherProfile = home.url.appendingPathComponent("cache/users/alice/somedomain/file.json")
        try FileManager.default.createDirectory(at: otherProfile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("y".utf8).write(to: otherProfile)

        let logout = try brados(["auth", "logout"], server: server)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: credentialsFile.path))
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("cache/users/default").path))
        #expect(FileManager.default.fileExists(atPath: otherProfile.path))
        let after = try brados(["auth", "status"], server: server)
        #expect(after.status == 4)
    }

    @Test("--offline opens no socket: the server sees zero requests")
    func offlineOpensNoSocket() async throws {
        let server = try ServerProcess()
        let flag = try brados(["--offline", "auth", "login", "--user", "demo", "--password-stdin"], server: server, stdin: "demo")
        #expect(flag.status == 5)
        #expect(flag.stderr.contains("offline"))
        let env = try brados(["auth", "status", "--check"], server: server, extra: ["BRADOS_OFFLINE": "1"])
        #expect(env.status == 5)
        #expect(try await server.stats().total == 0)
    }

    @Test("503 twice then 200 succeeds after exactly 2 retries; 404 is not retried")
    func retriesAgainstServer() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server: server, stdin: "demo").status == 0)
        try await server.resetStats()
        try await server.addFault(#"{"match":"GET /api/auth/me","status":503,"count":2}"#)
        let retried = try brados(["auth", "status", "--check"], server: server)
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(try await server.stats().byRoute["GET /api/auth/me"] == 3)

        try await server.resetStats()
        try await server.addFault(#"{"match":"GET /api/auth/me","status":404,"count":1}"#)
        let missing = try brados(["auth", "status", "--check"], server: server)
        #expect(missing.status == 3)
        #expect(try await server.stats().byRoute["GET /api/auth/me"] == 1)
    }

    @Test("a response that never ends is a server failure (exit 6) said in words, read once to its endpoint's limit, never retried")
    func endlessResponse() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server: server, stdin: "demo").status == 0)
        try await server.resetStats()
        try await server.addFault(#"{"match":"GET /api/visits","endless":true}"#)
        let listed = try brados(["visits", "list", "--refresh"], server: server)
        #expect(listed.status == 6, "\(listed.stderr)")
        #expect(listed.stderr.contains("The server's response to GET /api/visits was larger than 64.0 MB"), "\(listed.stderr)")
        #expect(!listed.stderr.contains("NIO") && !listed.stderr.contains("Could not reach"), "\(listed.stderr)")
        #expect(try await server.stats().byRoute["GET /api/visits"] == 1)
        // One item's endpoint has a smaller limit than the whole history's.
        try await server.addFault(#"{"match":"GET /api/auth/me","endless":true}"#)
        let status = try brados(["auth", "status", "--check"], server: server)
        #expect(status.status == 6 && status.stderr.contains("larger than 16.0 MB"), "\(status.stderr)")
    }

    @Test("an expired access token is renewed once and the request replayed")
    func renewal() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server: server, stdin: "demo").status == 0)
        // Make the stored access token invalid, as if it had expired.
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: credentialsFile)) as? [String: Any])
        var account = try #require(json["account"] as? [String: Any])
        account["accessToken"] = "at_expired"
        json["account"] = account
        try JSONSerialization.data(withJSONObject: json).write(to: credentialsFile)
        try await server.resetStats()

        let status = try brados(["auth", "status", "--check"], server: server)
        #expect(status.status == 0, "\(status.stderr)")
        let stats = try await server.stats()
        #expect(stats.byRoute["POST /api/auth/refresh"] == 1)
        #expect(stats.byRoute["GET /api/auth/me"] == 2)

        // The renewed session keeps working with no further renewal.
        try await server.resetStats()
        #expect(try brados(["auth", "status", "--check"], server: server).status == 0)
        #expect(try await server.stats().byRoute["POST /api/auth/refresh"] == nil)
    }

    @Test("with no server configured, the embedded backend answers and signs the demo user in")
    func embeddedDefault() throws {
        let result = try brados(["auth", "status", "--check"], server: nil)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Verified with the server: demo"))
        #expect(result.stderr.contains("built-in demo backend"))
        // One backend per profile, in its 0700 data folder: no TCP port, a 0600 socket, a random 0600 password.
        let folder = home.url.appendingPathComponent("data/users/default/.embedded")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("server.sqlite").path))
        func mode(_ url: URL) -> Int { ((try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions]) as? Int ?? -1) & 0o777 }
        #expect(mode(folder) == 0o700)
        #expect(mode(folder.appendingPathComponent("password")) == 0o600)
        let password = try String(contentsOf: folder.appendingPathComponent("password"), encoding: .utf8)
        #expect(password.count == 64 && password != "demo")
        // The socket is gone with the process that served it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sock") }.isEmpty)
        // The session persists: the next run reuses it without signing in again.
        let again = try brados(["auth", "status", "--check"], server: nil)
        #expect(again.status == 0)
        #expect(!again.stderr.contains("signed profile"))
        // The demo-backend notice is said once per profile (doctor keeps saying it).
        #expect(!again.stderr.contains("built-in demo backend"), "\(again.stderr)")
        #expect(try brados(["doctor"], server: nil).stdout.contains("built-in demo backend"))
    }

    @Test("config set/get/list/unset with validation and sources")
    func config() throws {
        #expect(try brados(["config", "set", "server", "not a url"], server: nil).status == 64)
        #expect(try brados(["config", "set", "nope", "x"], server: nil).status == 64)
        #expect(try brados(["config", "set", "server.plex", "http://127.0.0.1:32400/"], server: nil).status == 0)
        let get = try brados(["config", "get", "server.plex"], server: nil)
        #expect(get.stdout == "http://127.0.0.1:32400\n")
        let env = try brados(["config", "get", "server.plex", "--json"], server: nil, extra: ["BRADOS_PLEX_SERVER": "http://envhost:1"])
        #expect(env.stdout.contains("\"source\" : \"environment\""))
        let flag = try brados(["--server", "http://flaghost:2", "config", "get", "server.plex"], server: nil)
        #expect(flag.stdout == "http://flaghost:2\n")
        #expect(try brados(["config", "unset", "server.plex"], server: nil).status == 0)
        #expect(try brados(["config", "get", "server.plex"], server: nil).status == 3)
        // A typo is an error with the nearest profile suggested, and the active one stays.
        let typo = try brados(["auth", "switch", "defualt"], server: nil)
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("There is no profile 'defualt'. Did you mean 'default'?"))
        #expect(try brados(["auth", "switch", "alice"], server: nil).status == 64)
        #expect(try brados(["config", "get", "profile"], server: nil).stdout == "default\n")
        let created = try brados(["auth", "switch", "--create", "alice", "--json"], server: nil)
        #expect(created.status == 0)
        #expect(created.stdout.contains("\"signedIn\" : false"))
        #expect(try brados(["config", "get", "profile"], server: nil).stdout == "alice\n")
        #expect(try brados(["auth", "switch", "../evil"], server: nil).status == 64)
    }
}
