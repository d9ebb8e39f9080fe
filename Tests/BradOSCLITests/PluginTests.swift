import ArgumentParser
import BradOSAuth
import BradOSCLI
import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation
import TestSupport
import Testing

struct NotesPlugin: DomainPlugin {
    struct Command: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "notes")
    }
    var name: String { "notes" }
    var summary: String { "Test notes." }
    var command: any ParsableCommand.Type { Command.self }
}

@Suite("Plugin contract")
struct PluginTests {
    func environment(_ dir: TemporaryDirectory, flags: GlobalFlags = GlobalFlags(offline: true)) throws -> AppEnvironment {
        try AppEnvironment(io: CapturingIO(environment: ["BRADOS_HOME": dir.url.path]), flags: flags,
                           plugins: [NotesPlugin()], embedded: nil)
    }

    @Test("asShowsToday, asFeedsSearch and asAddsToCalendar answer as a cast does, for every registered domain and one adopting neither")
    func capabilityViews() {
        let plugins: [any DomainPlugin] = Registry.plugins + [NotesPlugin()]
        for plugin in plugins {
            #expect((plugin.asShowsToday != nil) == (plugin is any ShowsToday), "\(plugin.name): ShowsToday")
            #expect((plugin.asFeedsSearch != nil) == (plugin is any FeedsSearch), "\(plugin.name): FeedsSearch")
            #expect((plugin.asAddsToCalendar != nil) == (plugin is any AddsToCalendar), "\(plugin.name): AddsToCalendar")
            #expect(plugin.asShowsToday?.name ?? plugin.name == plugin.name)
        }
        // In the registry's order, the same plugins as the casts find.
        #expect(plugins.compactMap(\.asShowsToday).map(\.name) == plugins.filter { $0 is any ShowsToday }.map(\.name))
        #expect(plugins.compactMap(\.asFeedsSearch).map(\.name) == plugins.filter { $0 is any FeedsSearch }.map(\.name))
        #expect(!plugins.compactMap(\.asShowsToday).isEmpty && !plugins.compactMap(\.asFeedsSearch).isEmpty)
        #expect(plugins.compactMap(\.asAddsToCalendar).map(\.name) == plugins.filter { $0 is any AddsToCalendar }.map(\.name))
        #expect(NotesPlugin().asShowsToday == nil && NotesPlugin().asFeedsSearch == nil && NotesPlugin().asAddsToCalendar == nil)
    }

    @Test("default cache ownership: stats, export list and clear cover the domain's folders only")
    func defaults() throws {
        let dir = TemporaryDirectory()
        let env = try environment(dir)
        let plugin = NotesPlugin()
        try AtomicFile.write(Data(repeating: 1, count: 100), to: env.profile.cacheDirectory(for: "notes").appendingPathComponent("a.json"))
        try AtomicFile.write(Data(repeating: 2, count: 50), to: env.profile.dataDirectory(for: "notes").appendingPathComponent("n.sqlite"))
        try AtomicFile.write(Data(), to: env.profile.cacheDirectory(for: "notes").appendingPathComponent(".x.lock"))
        try AtomicFile.write(Data("other".utf8), to: env.profile.cacheDirectory(for: "other").appendingPathComponent("b"))

        let stats = try plugin.stats(in: env.profile)
        #expect(stats.files == 2)
        #expect(stats.bytes == 150)
        let exported = try plugin.archive.exportFiles(in: env.profile, staging: dir.url.appendingPathComponent("staging"))
        #expect(exported.map(\.archivePath) == ["cache/notes/a.json", "data/notes/n.sqlite"])
        #expect(exported.map(\.kind) == [.file, .sqlite])

        try plugin.clear(in: env.profile)
        #expect(try plugin.stats(in: env.profile).files == 0)
        #expect(FileManager.default.fileExists(atPath: env.profile.cacheDirectory(for: "other").appendingPathComponent("b").path))
    }

    @Test("logout erases credentials and every file of the profile, and only that profile")
    func logoutErasesProfile() async throws {
        let dir = TemporaryDirectory()
        let env = try environment(dir)
        try env.credentials.save(CredentialSet(account: Credential(
            accessToken: "a", refreshToken: "r", expiresAt: nil, user: "demo", userID: "1", server: "s", obtainedAt: Date())))
        try AtomicFile.write(Data("x".utf8), to: env.profile.cacheDirectory(for: "notes").appendingPathComponent("a"))
        try env.defaults.set("session-1", forKey: "inProgress")
        let other = try environment(dir, flags: GlobalFlags(profile: "alice", offline: true))
        try AtomicFile.write(Data("y".utf8), to: other.profile.cacheDirectory(for: "notes").appendingPathComponent("a"))

        let report = try await Sessions(env).logout()

        #expect(report.wasSignedIn)
        #expect(report.domains.first?.files == 1)
        #expect(!FileManager.default.fileExists(atPath: env.credentials.url.path))
        #expect(!FileManager.default.fileExists(atPath: env.profile.cacheDirectory.path))
        #expect(!FileManager.default.fileExists(atPath: env.profile.dataDirectory.path))
        #expect(FileManager.default.fileExists(atPath: other.profile.cacheDirectory(for: "notes").appendingPathComponent("a").path))
    }

    @Test("offline clients fail before any request")
    func offlineClient() async throws {
        let dir = TemporaryDirectory()
        let transport = StubTransport { _, _ in .json("{}") }
        let env = try AppEnvironment(io: CapturingIO(environment: ["BRADOS_HOME": dir.url.path, "BRADOS_OFFLINE": "1"]),
                                     flags: GlobalFlags(), plugins: [], embedded: nil, transport: transport)
        let error = await #expect(throws: NetworkError.self) { try await env.client(for: .account) }
        guard case .offlineMode? = error else { Issue.record("expected offline mode, got \(String(describing: error))"); return }
        #expect(transport.requests.isEmpty)
    }
}
