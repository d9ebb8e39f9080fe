import Foundation
import Testing
import TestSupport

/// One contract for scripts: every command's real `--json`, run against a real reference
/// server, keeps its JSON Schema in `contract/json/`; docs/commands.md's field lists are
/// written from the same schemas.
@Suite("End to end: the --json contract", .serialized, .ownThread)
struct JSONContractEndToEndTests {
    let home = TemporaryDirectory("e2e-contract")

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ], stdin: stdin)
    }

    /// How each contract's commands are run (with the arguments they need), in an order that
    /// fills what the next reads.
    static let runs: [(contract: String, arguments: [String])] = [
        ("doctor", ["doctor"]),
        ("sync", ["sync"]),
        ("plan-show", ["plan", "show"]), ("plan-show", ["plan", "targets"]),
        ("plan-sync", ["--offline", "plan", "weight", "84.5"]), ("plan-pending", ["plan", "pending"]), ("plan-sync", ["plan", "sync"]),
        ("plan-show", ["plan", "show"]),
        ("mealplan-show", ["mealplan", "show"]), ("mealplan-today", ["mealplan", "today"]),
        ("visits-list", ["visits", "list"]), ("library-albums", ["library", "albums", "--limit", "3"]),
        ("today", ["today"]), ("search", ["search", "protein"]), ("calendar", ["calendar"]),
        ("auth-status", ["auth", "status"]), ("auth-switch", ["auth", "switch", "default"]),
        ("cache-stats", ["cache", "stats"]), ("plugins-list", ["plugins", "list"]), ("config-list", ["config", "list"]),
        ("mealplan-status", ["mealplan", "status"]), ("coach-conversations", ["coach", "conversations"]), ("plan-history", ["plan", "history"]),
        ("version", ["version"]),
    ]

    @Test("every command with a schema keeps it: keys present (null when empty), one casing, booleans as booleans, structured values")
    func outputsKeepTheContract() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        var problems: [String] = []
        for (name, arguments) in Self.runs {
            let result = try brados(arguments + ["--json"], server)
            #expect([0, 1].contains(result.status), "\(arguments): \(result.stderr)")
            problems += try JSONContract(name: name).problems(in: result.stdout).map { "\(arguments.joined(separator: " ")): \($0)" }
        }
        // A visit by its id.
        let visits = try #require(try JSONSerialization.jsonObject(with: Data(try brados(["visits", "list", "--json"], server).stdout.utf8)) as? [String: Any])
        let visit = try #require((visits["visits"] as? [[String: Any]])?.first?["id"] as? String)
        problems += try JSONContract(name: "visits-show").problems(in: try brados(["visits", "show", visit, "--json"], server).stdout)
        // The archive commands: export to a file, verify it, import it (a dry run and a merge).
        let archive = home.url.appendingPathComponent("contract.tar.zst").path
        let export = try brados(["cache", "export", "-o", archive, "--json"], server)
        problems += try JSONContract(name: "cache-export").problems(in: export.stdout)
        problems += try JSONContract(name: "cache-verify").problems(in: try brados(["cache", "verify", archive, "--json"], server).stdout)
        for flags in [["--merge", "--dry-run"], ["--merge"]] {
            let imported = try brados(["cache", "import", archive, "--json"] + flags, server)
            #expect(imported.status == 0, "\(imported.stderr)")
            problems += try JSONContract(name: "cache-import").problems(in: imported.stdout)
        }
        // The coach's conversation, context and a deletion; the library's collections, a
        // collection's albums, an album and a collection; the kept plans and their diff.
        func first(_ key: String, _ field: String, of arguments: [String]) throws -> String {
            let document = try #require(try JSONSerialization.jsonObject(with: Data(try brados(arguments + ["--json"], server).stdout.utf8)) as? [String: Any])
            return try #require((document[key] as? [[String: Any]])?.first?[field] as? String, "\(arguments)")
        }
        let conversation = try first("conversations", "id", of: ["coach", "conversations"])
        let collection = try first("collections", "ratingKey", of: ["library", "collections"])
        let album = try first("albums", "ratingKey", of: ["library", "albums"])
        #expect(try brados(["plan", "weight", "83.5"], server).status == 0, "a second kept plan, for plan diff")
        for (name, arguments) in [("coach-show", ["coach", "show", conversation, "--last", "3"]), ("coach-context", ["coach", "context"]),
                                  ("library-collections", ["library", "collections"]), ("library-collection", ["library", "collections", collection]),
                                  ("library-show", ["library", "show", album]), ("library-show", ["library", "show", collection]),
                                  ("plan-history-plans", ["plan", "history", "--plans"]), ("plan-diff", ["plan", "diff"]),
                                  ("coach-delete", ["coach", "delete", conversation, "--yes"]), ("cache-clear", ["cache", "clear"]),
                                  ("auth-logout", ["auth", "logout", "--discard-pending"])] {
            let result = try brados(arguments + ["--json"], server)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            problems += try JSONContract(name: name).problems(in: result.stdout).map { "\(arguments.joined(separator: " ")): \($0)" }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        // today's queued change is an object, not prose.
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let today = try brados(["--offline", "plan", "weight", "84.0"], server)
        #expect(today.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(try brados(["today", "--json"], server).stdout.utf8)) as? [String: Any])
        let queued = try #require((document["plan"] as? [String: Any])?["queued"] as? [[String: Any]])
        #expect(queued.first?["summary"] as? String == "weight 84 kg" && queued.first?["createdAt"] is String && queued.first?["send"] as? String == "brados plan sync")
    }

    @Test("every schema names the commands it is the contract of, and each is run by the test above")
    func everySchemaIsChecked() throws {
        let contracts = try JSONContract.all()
        #expect(contracts.count >= 34)
        // Run above one by one, and coach-follow by CoachFollowEndToEndTests (every event of a live follow).
        let run = Set(Self.runs.map(\.contract) + ["cache-export", "cache-import", "cache-verify", "visits-show", "coach-show", "coach-context",
                                                   "library-collections", "library-collection", "library-show", "plan-history-plans", "plan-diff",
                                                   "coach-delete", "cache-clear", "auth-logout", "coach-follow"])
        for contract in contracts {
            #expect(!contract.commands.isEmpty, "\(contract.name) names no command")
            #expect(run.contains(contract.name), "\(contract.name) is not checked against a real output")
        }
    }

    @Test("docs/commands.md's --json field lists are the schemas' (make readme writes them)")
    func docsFromTheContract() throws {
        let check = try SystemCommand.run("python3", [JSONContract.folder.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/generate-json-docs.py").path, "--check"])
        #expect(check.status == 0, "\(check.stderr)")
    }
}
