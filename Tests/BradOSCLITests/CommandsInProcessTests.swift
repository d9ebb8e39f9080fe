import BradOSAuth
@testable import BradOSCLI
import BradOSCore
import BradOSErrors
import BradOSStorage
import Foundation
import TestSupport
import Testing

/// Every group of the CLI's own commands run in-process, with an environment the test builds
/// (`run(in:)`): no binary, no terminal, no network (offline unless a test says otherwise).
@Suite("The CLI's commands, run with an environment a test builds")
struct CommandsInProcessTests {
    let home = TemporaryDirectory()

    /// A fresh environment over the test's home (settings are read when it is built).
    func environment(json: Bool = false, offline: Bool = true) throws -> (env: AppEnvironment, io: CapturingIO) {
        let io = CapturingIO(environment: ["BRADOS_HOME": home.url.path, "HOME": home.url.path])
        var flags = GlobalFlags()
        flags.json = json
        flags.offline = offline
        let env = try AppEnvironment(io: io, flags: flags, plugins: Registry.plugins, features: Registry.features, embedded: nil)
        return (env, io)
    }

    /// Runs `body` with the registry's composition bound, as the executable does.
    func bound<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await Composition(plugins: Registry.plugins, features: Registry.features).bind(body)
    }

    @Test("config: set writes the file, get reads it back, list shows it, unset removes it")
    func config() async throws {
        try await ConfigCommand.Set.parse(["server.plex", "http://127.0.0.1:32400"]).run(in: environment().env)
        let get = try environment()
        try await ConfigCommand.Get.parse(["server.plex"]).run(in: get.env)
        #expect(get.io.stdout == "http://127.0.0.1:32400\n")
        let list = try environment()
        try await ConfigCommand.List.parse([]).run(in: list.env)
        #expect(list.io.stdout.contains("http://127.0.0.1:32400"))
        #expect(list.io.stdout.contains("archive.max-bytes"), "a feature's setting is listed with the core's")
        #expect(list.io.stdout.contains("display.art"), "a feature's setting is listed with the core's")
        try await ConfigCommand.Unset.parse(["server.plex"]).run(in: environment().env)
        await #expect(throws: CommandError.self) { try await ConfigCommand.Get.parse(["server.plex"]).run(in: environment().env) }
        await #expect(throws: ConfigError.self) { try await ConfigCommand.Set.parse(["no.such-key", "1"]).run(in: environment().env) }
    }

    @Test("exit-codes: prints the one table")
    func exitCodes() async throws {
        let (env, io) = try environment()
        try await ExitCodesCommand.parse([]).run(in: env)
        for entry in ExitStatus.table { #expect(io.stdout.contains(String(entry.code)), "\(entry.code)") }
    }

    @Test("plugins list: the registry's five domains")
    func plugins() async throws {
        let (env, io) = try environment(json: true)
        try await PluginsCommand.List.parse([]).run(in: env)
        for name in ["mealplan", "visits", "library", "coach", "plan"] { #expect(io.stdout.contains("\"\(name)\""), "\(name)") }
    }

    @Test("keys: generate makes the profile's age key, show prints the same recipient, a second generate refuses")
    func keys() async throws {
        let generated = try environment()
        try await KeysCommand.Generate.parse([]).run(in: generated.env)
        let recipient = try #require(generated.io.stdout.split(separator: "\n").first { $0.hasPrefix("age1") })
        let shown = try environment()
        try await KeysCommand.Show.parse([]).run(in: shown.env)
        #expect(shown.io.stdout.contains(recipient))
        await #expect(throws: (any Error).self) { try await KeysCommand.Generate.parse([]).run(in: environment().env) }
    }

    @Test("cache: stats of an empty profile counts nothing; clear of one domain removes its files and says so")
    func cache() async throws {
        let stats = try environment(json: true)
        try await CacheCommand.Stats.parse([]).run(in: stats.env)
        let document = try JSONSerialization.jsonObject(with: Data(stats.io.stdout.utf8)) as? [String: Any]
        let domains = try #require(document?["domains"] as? [[String: Any]])
        #expect(domains.map { $0["domain"] as? String } == ["mealplan", "visits", "library", "coach", "plan"])
        #expect(domains.allSatisfy { $0["files"] as? Int == 0 })
        let profile = stats.env.profile
        let file = profile.cacheDirectory(for: "visits").appendingPathComponent("visits.json")
        try AtomicFile.write(Data("[]".utf8), to: file)
        let clear = try environment()
        try await CacheCommand.Clear.parse(["visits"]).run(in: clear.env)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("doctor, offline: the configuration, the folders and each feature's checks (libarchive, pictures)")
    func doctor() async throws {
        let (env, io) = try environment(json: true)
        try await bound { try await DoctorCommand.parse([]).run(in: env) }
        let checks = try JSONDecoder().decode([DoctorCheck].self, from: Data(io.stdout.utf8))
        let names = checks.map(\.name)
        #expect(names.first == "config")
        #expect(names.contains("libarchive"), "the archive feature's check")
        #expect(names.contains("pictures mode"), "the pictures feature's check")
        for service in ["api", "plex", "supabase", "nutrition"] {
            #expect(checks.first { $0.name == "server \(service)" }?.detail == "the built-in demo backend (no server configured)")
        }
    }

    @Test("auth status: a profile never signed in prints so and fails with sign-in's exit code, as gh does")
    func auth() async throws {
        let (env, io) = try environment()
        await #expect(throws: AuthError.self) { try await AuthCommand.Status.parse([]).run(in: env) }
        #expect(io.stdout.contains("Profile: default (active)\nNot signed in."))
    }

    @Test("search: nothing cached finds nothing and says what is searched")
    func search() async throws {
        let (env, io) = try environment()
        try await bound { try await SearchCommand.parse(["protein"]).run(in: env) }
        #expect(io.stdout.contains("No cached item matches 'protein'."))
    }

    @Test("sync, offline: each domain that needs the network says so, and the command goes on")
    func sync() async throws {
        let (env, io) = try environment()
        try? await bound { try await SyncCommand.parse([]).run(in: env) }
        for domain in ["visits", "library", "coach"] { #expect(io.stderr.contains("sync \(domain): This command needs the network"), "\(domain)") }
    }

    @Test("today, offline: every domain's section, each saying what fills it")
    func today() async throws {
        let (env, io) = try environment()
        try await bound { try await TodayCommand.parse([]).run(in: env) }
        #expect(io.stdout.contains("Meals  nothing cached · brados mealplan show"))
        #expect(io.stdout.contains("Visits  nothing cached · brados visits list"))
    }
}
