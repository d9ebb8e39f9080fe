import Foundation
import Testing
import TestSupport

/// The built `brados` with a real Secret Service (GNOME Keyring on a private session bus),
/// read and written by `secret-tool` too, and with no bus at all.
@Suite("End to end: secrets in the system keyring", .serialized, .ownThread)
struct KeyringEndToEndTests {
    let home = TemporaryDirectory("e2e-keyring")

    func brados(_ arguments: [String], _ session: KeyringSession?, store: String = "auto", server: ServerProcess? = nil,
                stdin: String? = nil) throws -> BuiltProducts.Result {
        var environment = ["BRADOS_HOME": home.url.path, "BRADOS_CREDENTIALS_STORE": store, "BRADOS_KEYRING_TIMEOUT": "5s"]
        environment.merge(session?.environment ?? ["HOME": home.url.path]) { _, new in new }
        if let server { environment["BRADOS_SERVER"] = server.url.absoluteString }
        return try BuiltProducts.run("brados", arguments, environment: environment, stdin: stdin)
    }

    var credentialsFile: URL { home.url.appendingPathComponent("config/credentials/default.json") }
    var fileText: String { (try? String(contentsOf: credentialsFile, encoding: .utf8)) ?? "" }
    static let account = ["application", "brados", "profile", "default", "service", "account"]

    func statusJSON(_ session: KeyringSession?) throws -> [String: Any] {
        let status = try brados(["auth", "status", "--json"], session)
        return try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], "\(status.stderr)")
    }

    @Test("a secret brados stores is read back by secret-tool; the file holds none; status, doctor and logout say and do the rest")
    func storesInTheKeyring() throws {
        let session = try KeyringSession()
        let server = try ServerProcess()
        let login = try brados(["auth", "login", "--user", "demo", "--password-stdin"], session, server: server, stdin: "demo\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(!login.stderr.contains("keyring did not take"), "no fallback notice with a keyring")
        let item = try session.secretTool(["lookup"] + Self.account)
        let stored = try #require(try JSONSerialization.jsonObject(with: Data(item.stdout.utf8)) as? [String: Any], "\(item.stderr)")
        let token = try #require(stored["accessToken"] as? String)
        #expect(!fileText.contains(token) && fileText.contains("\"keyring\""))

        let status = try statusJSON(session)
        let secrets = try #require(status["secrets"] as? [String: Any])
        #expect(secrets["keyringAnswers"] as? Bool == true)
        #expect((secrets["secrets"] as? [[String: Any]])?.map { "\($0["name"]!) \($0["location"]!)" } == ["account keyring"])
        #expect(try brados(["auth", "status", "--check"], session, server: server).stdout.contains("Verified with the server: demo"))
        let doctor = try brados(["doctor"], session, server: server)
        #expect(doctor.stdout.contains("credentials: store auto; keyring: answers; 1 secret in the keyring"), "\(doctor.stdout)")

        let logout = try brados(["auth", "logout"], session, server: server)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(try session.secretTool(["lookup"] + Self.account).stdout.isEmpty, "erased from the keyring")
        #expect(!FileManager.default.fileExists(atPath: credentialsFile.path))
    }

    @Test("a session in the keyring: reads of the caches load no libsecret (the file says who it is); a request reads the keyring")
    func readsLeaveTheKeyringAlone() throws {
        let session = try KeyringSession()
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], session, server: server, stdin: "demo\n").status == 0)
        #expect(try brados(["visits", "list"], session, server: server).status == 0)
        #expect(fileText.contains("keyringIdentities") && fileText.contains("\"user\""), "who the session is, beside the index: \(fileText)")
        let token = try #require(try JSONSerialization.jsonObject(with: Data(try session.secretTool(["lookup"] + Self.account).stdout.utf8)) as? [String: Any])["accessToken"] as? String
        #expect(!fileText.contains(try #require(token)), "never a token in the file")
        for arguments in [["--offline", "today"], ["--offline", "visits", "list"], ["--offline", "search", "protein"]] {
            let result = try BuiltProducts.run("brados", arguments, environment: [
                "BRADOS_HOME": home.url.path, "BRADOS_CREDENTIALS_STORE": "auto", "BRADOS_SERVER": server.url.absoluteString, "LD_DEBUG": "files",
            ].merging(session.environment) { _, new in new })
            #expect(result.status == 0, "\(arguments): \(result.stderr.suffix(300))")
            #expect(!result.stderr.contains("libsecret-1.so"), "\(arguments) loaded libsecret")
        }
        let online = try brados(["visits", "list", "--refresh", "--json"], session, server: server)
        #expect(online.status == 0, "a request still finds its token in the keyring: \(online.stderr)")
        #expect(try brados(["auth", "logout"], session, server: server).status == 0)
        #expect(try session.secretTool(["lookup"] + Self.account).stdout.isEmpty, "revoked and erased from the keyring")
    }

    @Test("a token stored with secret-tool under brados's attributes is used by brados")
    func usesAnItemStoredByHand() throws {
        let session = try KeyringSession()
        let server = try ServerProcess()
        // A token the server issued, obtained with the file store, then put in the keyring by hand.
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], nil, store: "file", server: server, stdin: "demo\n").status == 0)
        let saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: credentialsFile)) as? [String: Any])
        let token = try #require((saved["account"] as? [String: Any])?["accessToken"] as? String)
        try FileManager.default.removeItem(at: credentialsFile)
        #expect(try session.secretTool(["store", "--label=brados by hand"] + Self.account, stdin: token).status == 0)
        let check = try brados(["auth", "status", "--check"], session, server: server)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("Verified with the server: demo") && check.stdout.contains("account  keyring"))
    }

    @Test("migrate moves every secret both ways, nothing lost; a locked keyring is exit 13 and erases nothing")
    func migrateAndLocked() throws {
        let session = try KeyringSession()
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], session, store: "file", server: server, stdin: "demo\n").status == 0)
        let token = try #require(((try JSONSerialization.jsonObject(with: Data(contentsOf: credentialsFile)) as? [String: Any])?["account"] as? [String: Any])?["accessToken"] as? String)
        #expect(try brados(["auth", "status"], session).stdout.contains("move them: brados auth migrate --to keyring"))

        let toKeyring = try brados(["auth", "migrate", "--to", "keyring"], session)
        #expect(toKeyring.status == 0 && toKeyring.stdout.contains("moved account to the keyring"), "\(toKeyring.stderr)")
        #expect(!fileText.contains(token))
        #expect(try session.secretTool(["lookup"] + Self.account).stdout.contains(token))
        // Every profile at once: this one's secret in the keyring, another's in its file.
        #expect(try brados(["--profile", "work", "auth", "login", "--user", "demo", "--password-stdin"], session, store: "file", server: server, stdin: "demo\n").status == 0)
        let all = try brados(["auth", "status", "--all", "--json"], session)
        let profiles = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]], "\(all.stderr)")
        let places = profiles.map { profile in
            "\(profile["profile"]!): " + (((profile["secrets"] as? [String: Any])?["secrets"] as? [[String: Any]]) ?? []).map { "\($0["name"]!) \($0["location"]!)" }.joined(separator: ", ")
        }
        #expect(places == ["default: account keyring", "work: account file"])
        #expect(try brados(["auth", "status", "--all"], session).stdout.contains("Profile: work\nSigned in as demo"))
        #expect(try brados(["auth", "status", "--all", "--check"], session).status == 64)
        #expect(try brados(["--profile", "work", "auth", "logout"], session, server: server).status == 0)

        try session.lock()
        let locked = try brados(["mealplan", "show"], session, server: server)
        #expect(locked.status == 13 && locked.stderr.contains("the keyring is locked"), "\(locked.stderr)")
        let logout = try brados(["auth", "logout"], session, server: server)
        #expect(logout.status == 13)
        try session.unlock()
        #expect(try session.secretTool(["lookup"] + Self.account).stdout.contains(token), "the refused sign-out erased nothing")

        let toFile = try brados(["auth", "migrate", "--to", "file", "--json"], session)
        #expect(toFile.status == 0 && toFile.stdout.contains("\"moved\""), "\(toFile.stderr)")
        #expect(fileText.contains(token))
        #expect(try session.secretTool(["lookup"] + Self.account).stdout.isEmpty)
        #expect(try brados(["auth", "status", "--check"], session, server: server).status == 0)
    }

    @Test("no session bus: auto falls back to the file and says so once; keyring fails with exit 13 and says what to do")
    func noBus() throws {
        let server = try ServerProcess()
        let auto = try brados(["auth", "login", "--user", "demo", "--password-stdin"], nil, server: server, stdin: "demo\n")
        #expect(auto.status == 0, "\(auto.stderr)")
        #expect(auto.stderr.components(separatedBy: "the keyring did not take").count == 2, "said once: \(auto.stderr)")
        #expect(auto.stderr.contains("brados auth migrate --to keyring"))
        #expect(fileText.contains("accessToken"))
        // Used as it is, without a word more.
        let used = try brados(["auth", "status", "--check"], nil, server: server)
        #expect(used.status == 0 && !used.stderr.contains("keyring did not take"), "\(used.stderr)")

        try FileManager.default.removeItem(at: credentialsFile)
        let keyring = try brados(["auth", "login", "--user", "demo", "--password-stdin"], nil, store: "keyring", server: server, stdin: "demo\n")
        #expect(keyring.status == 13, "\(keyring.stderr)")
        #expect(keyring.stderr.contains("no keyring answered") && keyring.stderr.contains("credentials.store file"))
        #expect(!fileText.contains("accessToken"), "nothing put in a file")
        let flag = try brados(["auth", "login", "--user", "demo", "--password-stdin", "--credentials-store", "keyring"], nil, store: "file", server: server, stdin: "demo\n")
        #expect(flag.status == 13, "the flag wins over the environment")
    }
}
