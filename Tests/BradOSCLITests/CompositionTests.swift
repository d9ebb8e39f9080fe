import ArgumentParser
@testable import BradOSCLI
@testable import BradOSCore
import Testing

/// A domain that adds a sync flag named after it, so a help text shows which composition it read.
struct FlaggedPlugin: Syncs {
    struct Command: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "flagged")
    }
    var name: String
    var summary: String { "A test domain called \(name)." }
    var command: any ParsableCommand.Type { Command.self }
    var syncFlags: [SyncFlag] { [SyncFlag(name: name, help: "Refresh \(name) too.")] }
    var syncDescription: String { "refreshes \(name)" }
    func sync(_ env: AppEnvironment, options: SyncOptions) async throws -> String? { nil }
}

/// The composition (plugins, embedded backend) is passed by binding, not installed in a global:
/// a test builds the CLI's commands with any set of plugins, and two at once do not meet.
@Suite("Composition: the plugin set bound around a command")
struct CompositionTests {
    /// What the core's commands make of the bound composition: `sync`'s help and parse, the
    /// completion values and the help examples.
    struct Seen: Sendable {
        var syncHelp: String
        var parsesOwnFlag: Bool
        var parsesOtherFlag: Bool
        var domains: [String]
        var example: String
    }

    static func look(own: String, other: String) -> Seen {
        Seen(syncHelp: SyncCommand.helpMessage(columns: 200),
             parsesOwnFlag: (try? SyncCommand.parse(["--\(own)"])) != nil,
             parsesOtherFlag: (try? SyncCommand.parse(["--\(other)"])) != nil,
             domains: CompletionValues.domains(),
             example: HelpExamples.domains(2))
    }

    @Test("two compositions on two concurrent tasks each see only their own plugins")
    func concurrentCompositions() async throws {
        let tides = Composition(plugins: [FlaggedPlugin(name: "tides")])
        let stars = Composition(plugins: [FlaggedPlugin(name: "stars"), FlaggedPlugin(name: "comets")])
        // Many rounds interleaved on the cooperative pool: a global would leak between them.
        let results = await withTaskGroup(of: (String, Seen).self) { group in
            for round in 0..<40 {
                if round.isMultiple(of: 2) {
                    group.addTask { await tides.bind { await Task.yield(); return ("tides", Self.look(own: "tides", other: "stars")) } }
                } else {
                    group.addTask { await stars.bind { await Task.yield(); return ("stars", Self.look(own: "stars", other: "tides")) } }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 40)
        for (name, seen) in results {
            let other = name == "tides" ? "stars" : "tides"
            #expect(seen.syncHelp.contains("--\(name)") && seen.syncHelp.contains("refreshes \(name)"), "\(seen.syncHelp)")
            #expect(!seen.syncHelp.contains("--\(other)"), "\(seen.syncHelp)")
            #expect(seen.parsesOwnFlag)
            #expect(!seen.parsesOtherFlag)
            #expect(seen.domains == (name == "tides" ? ["tides"] : ["stars", "comets"]))
            #expect(seen.example == (name == "tides" ? "tides" : "stars comets"))
        }
    }

    @Test("outside any binding the core sees no plugins, and a binding ends with its body")
    func unbound() {
        #expect(Composition.current.plugins.isEmpty)
        #expect(Composition.current.embedded == nil)
        #expect(!SyncCommand.helpMessage(columns: 200).contains("Flags the domains add:"))
        #expect(HelpExamples.domains(2) == "DOMAIN")
        let inside = Composition(plugins: [FlaggedPlugin(name: "tides")], builtInCommands: { ["sync", "tides"] })
            .bind { (Composition.current.plugins.map(\.name), Composition.current.builtInCommands) }
        #expect(inside.0 == ["tides"])
        #expect(inside.1 == ["sync", "tides"])
        #expect(Composition.current.plugins.isEmpty)
    }
}
