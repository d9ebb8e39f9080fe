import Foundation
import Testing
import TestSupport

/// External plugins end to end: `brados NAME` runs `brados-NAME` from PATH.
@Suite("End to end: external plugins", .ownThread)
struct PluginsEndToEndTests {
    let home = TemporaryDirectory("e2e-plugins")
    /// The repository's `examples/` folder (brados-hello lives there).
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples").path

    func brados(_ arguments: [String], path: String) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "PATH": path + ":/usr/bin:/bin",
        ])
    }

    @Test("brados hello runs examples/brados-hello with the arguments, the profile's folders, and its exit code")
    func helloExample() throws {
        let result = try brados(["hello", "Ada", "--exit", "3"], path: Self.examples)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stdout.contains("hello, Ada"))
        #expect(result.stdout.contains("profile: default"))
        #expect(result.stdout.contains("cache: \(home.url.path)/cache/users/default"))
        #expect(result.stdout.contains("data: \(home.url.path)/data/users/default"))
        #expect(result.stdout.contains("config: \(home.url.path)/config"))
        let scoped = try brados(["--profile", "work", "--offline", "--server", "http://127.0.0.1:9", "hello"], path: Self.examples)
        #expect(scoped.status == 0)
        #expect(scoped.stdout.contains("profile: work") && scoped.stdout.contains("offline: 1") && scoped.stdout.contains("server: http://127.0.0.1:9"))
        // Global options after the plugin's name count as before it.
        let after = try brados(["hello", "Ada", "--offline", "--json", "--profile", "work"], path: Self.examples)
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout.contains("hello, Ada") && after.stdout.contains("offline: 1") && after.stdout.contains("json: 1")
                && after.stdout.contains("profile: work"), "\(after.stdout)")
        // After `--` they are the plugin's own.
        let own = try brados(["hello", "--", "--offline"], path: Self.examples)
        #expect(!own.stdout.contains("offline: 1"), "\(own.stdout)")
    }

    @Test("built-ins always win; plugins list warns about shadowed and non-executable plugins; unknown names are usage errors")
    func listAndShadowing() throws {
        let folder = home.url.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let shadowing = folder.appendingPathComponent("brados-coach")
        try "#!/bin/sh\necho impostor\n".write(to: shadowing, atomically: true, encoding: .utf8)
        chmod(shadowing.path, 0o755)
        try "#!/bin/sh\necho never\n".write(to: folder.appendingPathComponent("brados-broken"), atomically: true, encoding: .utf8)
        let path = folder.path + ":" + Self.examples
        let coach = try brados(["coach", "--help"], path: path)
        #expect(coach.status == 0 && !coach.stdout.contains("impostor") && coach.stdout.contains("Coach conversations"))
        let list = try brados(["plugins", "list", "--json"], path: path)
        #expect(list.status == 0, "\(list.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
        let external = document["external"] as? [[String: Any]] ?? []
        #expect(external.first { $0["name"] as? String == "hello" }?["executable"] as? Bool == true)
        #expect((external.first { $0["name"] as? String == "coach" }?["shadowedBy"] as? String)?.contains("built-in") == true)
        #expect(external.first { $0["name"] as? String == "broken" }?["executable"] as? Bool == false)
        #expect((document["builtIn"] as? [[String: Any]])?.count == 5)
        let human = try brados(["plugins"], path: path)
        #expect(human.stderr.contains("never runs") && human.stderr.contains("not executable"))
        let unknown = try brados(["nosuch"], path: path)
        #expect(unknown.status == 64 && unknown.stderr.contains("no executable brados-nosuch"))
        let broken = try brados(["broken"], path: path)
        #expect(broken.status == 64)
    }

    @Test("a mistyped command or subcommand gets the nearest one suggested as a command line, with exit 64; a word near nothing gets none")
    func didYouMean() throws {
        let cases: [([String], String?)] = [
            (["mealpln", "show"], "brados mealplan show"),
            (["libary", "albums", "--json"], "brados library albums --json"),
            (["mealplan", "shw"], "brados mealplan show"),
            (["coach", "conversatons"], "brados coach conversations"),
            (["cache", "exprot", "-o", "x.tar.zst"], "brados cache export -o x.tar.zst"),
            (["helo"], "brados hello"),
            (["helo", "Ada"], "brados hello Ada"),
            (["xyzzy"], nil),
            (["visits", "zzzzzz"], nil),
        ]
        for (arguments, suggestion) in cases {
            let result = try brados(arguments, path: Self.examples)
            #expect(result.status == 64, "\(arguments)")
            if let suggestion {
                #expect(result.stderr.contains("Did you mean `\(suggestion)`?"), "\(arguments): \(result.stderr)")
            } else {
                #expect(!result.stderr.contains("Did you mean"), "\(arguments): \(result.stderr)")
            }
        }
    }
}
