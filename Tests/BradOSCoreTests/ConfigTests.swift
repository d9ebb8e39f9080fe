import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import TestSupport
import Testing

@Suite("Config precedence and paths")
struct ConfigTests {
    @Test("network.timeout: 30 s by default, from the environment or the file; every request gets it")
    func networkTimeout() async throws {
        #expect(try Settings(flags: GlobalFlags(), environment: [:], file: ConfigFile()).networkTimeout() == .seconds(30))
        #expect(try Settings(flags: GlobalFlags(), environment: ["BRADOS_NETWORK_TIMEOUT": "2s"], file: ConfigFile()).networkTimeout() == .seconds(2))
        #expect(try Settings(flags: GlobalFlags(), environment: [:], file: ConfigFile(values: ["network.timeout": "1m"])).networkTimeout() == .seconds(60))
        // A value `config set` refuses (zero) is refused at read time too, naming the variable.
        let error = #expect(throws: ConfigError.self) {
            try Settings(flags: GlobalFlags(), environment: ["BRADOS_NETWORK_TIMEOUT": "0s"], file: ConfigFile()).networkTimeout()
        }
        #expect(error?.summary == "Invalid value '0s' for BRADOS_NETWORK_TIMEOUT: expected a duration above zero, such as 90s, 5m or 1h.")
        #expect(error?.recovery == "Fix or unset the environment variable BRADOS_NETWORK_TIMEOUT.")
        let stub = StubTransport { _, _ in .json("{}") }
        let transport = TimeoutTransport(base: stub, timeout: .seconds(2))
        _ = try await transport.send(HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1:1/x")!))
        #expect(stub.requests.map(\.timeout) == [.seconds(2)])
    }

    @Test("profile: flag > environment > file > default")
    func profilePrecedence() throws {
        let file = ConfigFile(values: ["profile": "fromfile"])
        let env = ["BRADOS_PROFILE": "fromenv"]
        #expect(try Settings(flags: GlobalFlags(profile: "fromflag"), environment: env, file: file).profile().rawValue == "fromflag")
        #expect(try Settings(flags: GlobalFlags(), environment: env, file: file).profile().rawValue == "fromenv")
        #expect(try Settings(flags: GlobalFlags(), environment: [:], file: file).profile().rawValue == "fromfile")
        #expect(try Settings(flags: GlobalFlags(), environment: [:], file: ConfigFile()).profile().rawValue == "default")
        #expect(Settings(flags: GlobalFlags(), environment: env, file: file).resolve("profile").source == .environment)
    }

    /// A service a plugin would declare (the core knows only the account service).
    static let plex = Service(rawValue: "plex")

    @Test("server URLs: flag > service env > BRADOS_SERVER > service key > server key > embedded")
    func serverPrecedence() {
        let plex = Self.plex
        let file = ConfigFile(values: ["server": "http://file-all", "server.plex": "http://file-plex"])
        func url(_ flags: GlobalFlags, _ env: [String: String], _ file: ConfigFile, _ service: Service) -> String? {
            try? Settings(flags: flags, environment: env, file: file).serverURL(for: service)?.url.absoluteString
        }
        let env = ["BRADOS_SERVER": "http://env-all", "BRADOS_PLEX_SERVER": "http://env-plex"]
        #expect(url(GlobalFlags(server: "http://flag"), env, file, plex) == "http://flag")
        #expect(url(GlobalFlags(), env, file, plex) == "http://env-plex")
        #expect(url(GlobalFlags(), env, file, .account) == "http://env-all")
        #expect(url(GlobalFlags(), [:], file, plex) == "http://file-plex")
        #expect(url(GlobalFlags(), [:], file, .account) == "http://file-all")
        #expect(url(GlobalFlags(), [:], ConfigFile(), .account) == nil)
    }

    @Test("a server URL that is not an http(s) URL is an error naming where it came from")
    func invalidServerURL() {
        let plex = Self.plex
        #expect(throws: ConfigError.self) {
            try Settings(flags: GlobalFlags(), environment: ["BRADOS_SERVER": "localhost:8080"], file: ConfigFile()).serverURL(for: .account)
        }
        do {
            _ = try Settings(flags: GlobalFlags(), environment: [:], file: ConfigFile(values: ["server.plex": "ftp://x"])).serverURL(for: plex)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("server.plex"))
        }
    }

    @Test("durations parse as seconds, minutes, hours or days")
    func durations() {
        #expect(parseDuration("300") == .seconds(300))
        #expect(parseDuration("5m") == .seconds(300))
        #expect(parseDuration("1h") == .seconds(3600))
        #expect(parseDuration("2d") == .seconds(172_800))
        #expect(parseDuration("-1") == nil)
        #expect(parseDuration("soon") == nil)
        #expect(parseDuration("99999999999999999d") == nil) // overflow: an error, never a crash
        #expect(parseDuration("11000d") == nil)
    }

    @Test("offline and log level come from flags, environment or file")
    func offlineAndLog() {
        #expect(Settings(flags: GlobalFlags(offline: true), environment: [:], file: ConfigFile()).isOffline)
        #expect(Settings(flags: GlobalFlags(), environment: ["BRADOS_OFFLINE": "1"], file: ConfigFile()).isOffline)
        #expect(Settings(flags: GlobalFlags(), environment: [:], file: ConfigFile(values: ["offline": "true"])).isOffline)
        #expect(!Settings(flags: GlobalFlags(), environment: [:], file: ConfigFile()).isOffline)
        #expect(Settings(flags: GlobalFlags(verbose: true), environment: ["BRADOS_LOG": "error"], file: ConfigFile()).logLevel == .debug)
        #expect(Settings(flags: GlobalFlags(), environment: ["BRADOS_LOG": "error"], file: ConfigFile()).logLevel == .error)
    }

    @Test("BRADOS_HOME overrides the XDG directories; XDG is honoured; relative XDG paths are ignored")
    func paths() {
        let home = Paths.resolve(environment: ["BRADOS_HOME": "/h", "XDG_CACHE_HOME": "/x"])
        #expect(home.cacheRoot.path == "/h/cache")
        #expect(home.configRoot.path == "/h/config")
        let xdg = Paths.resolve(environment: ["HOME": "/u", "XDG_CACHE_HOME": "/xc", "XDG_CONFIG_HOME": "relative"])
        #expect(xdg.cacheRoot.path == "/xc/brados")
        #expect(xdg.configRoot.path == "/u/.config/brados")
        #expect(xdg.dataRoot.path == "/u/.local/share/brados")
        let profile = xdg.profile(.default)
        #expect(profile.cacheDirectory(for: "mealplan").path == "/xc/brados/users/default/mealplan")
    }

    @Test("an empty, relative or missing HOME is never the working directory: the account's home, else an error that says what to set")
    func homeNeverWorkingDirectory() throws {
        for home in ["", "relative/dir", nil] as [String?] {
            let environment = home.map { ["HOME": $0] } ?? [:]
            let fromAccount = Paths.resolve(environment: environment, accountHome: { "/home/acct" })
            #expect(fromAccount.configRoot.path == "/home/acct/.config/brados")
            #expect(fromAccount.dataRoot.path == "/home/acct/.local/share/brados")
            #expect(fromAccount.homeProblem == nil)
            let none = Paths.resolve(environment: environment, accountHome: { nil })
            #expect(none.homeProblem != nil)
            #expect(none.configRoot.path.hasPrefix("/") && none.cacheRoot.path.hasPrefix("/"))
            // A relative account home is no better.
            #expect(Paths.resolve(environment: environment, accountHome: { "rel" }).homeProblem != nil)
        }
        #expect(Paths.resolve(environment: ["HOME": ""], accountHome: { nil }).homeProblem == "HOME is empty")
        // Absolute XDG folders for all three need no home; BRADOS_HOME neither.
        #expect(Paths.resolve(environment: ["XDG_CONFIG_HOME": "/c", "XDG_CACHE_HOME": "/k", "XDG_DATA_HOME": "/d"], accountHome: { nil }).homeProblem == nil)
        #expect(Paths.resolve(environment: ["BRADOS_HOME": "/b", "HOME": ""], accountHome: { nil }).homeProblem == nil)
        let error = ConfigError.noHome("HOME is empty")
        #expect(error.summary.contains("HOME is empty"))
        #expect(error.recovery?.contains("Set HOME") == true)
        #expect(ExitStatus.code(for: error) == 64)
    }

    @Test("profile names are single safe path components", arguments: ["..", "../x", "a/b", "", ".hidden", "-x", String(repeating: "a", count: 65)])
    func badProfileNames(name: String) {
        #expect(ProfileName(rawValue: name) == nil)
    }

    @Test("config file updates keep other keys; a file that is not a JSON object of strings is an error")
    func fileUpdate() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cfg-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("config.json")
        try ConfigFile.update(at: url) { $0.values["server"] = "http://a" }
        try ConfigFile.update(at: url) { $0.values["profile"] = "p" }
        #expect(try ConfigFile.load(from: url).values == ["server": "http://a", "profile": "p"])
        try Data("[1]".utf8).write(to: url)
        #expect(throws: ConfigError.self) { try ConfigFile.load(from: url) }
    }

    @Test("global flags before the subcommand are moved after it")
    func hoisting() {
        #expect(GlobalOptions.hoistLeadingGlobals(["--offline", "auth", "logout"]) == ["auth", "logout", "--offline"])
        #expect(GlobalOptions.hoistLeadingGlobals(["--profile", "p", "--json", "auth", "status"]) == ["auth", "status", "--profile", "p", "--json"])
        #expect(GlobalOptions.hoistLeadingGlobals(["--server=http://x", "a", "--", "-y"]) == ["a", "--server=http://x", "--", "-y"])
        #expect(GlobalOptions.hoistLeadingGlobals(["--help"]) == ["--help"])
        #expect(GlobalOptions.hoistLeadingGlobals(["--offline"]) == ["--offline"])
        #expect(GlobalOptions.hoistLeadingGlobals(["auth", "--offline"]) == ["auth", "--offline"])
    }
}
