import Foundation
import Testing
import TestSupport

/// man/brados.1 stays in step with the command tree and renders cleanly.
@Suite("The man page", .ownThread)
struct ManPageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let home = TemporaryDirectory("e2e-man")

    func page() throws -> String { try String(contentsOf: Self.repository.appendingPathComponent("man/brados.1"), encoding: .utf8) }

    @Test("every command and option of the built binary is in man/brados.1 (regenerate with scripts/generate-man.sh)")
    func coversTheCommandTree() throws {
        let dump = try BuiltProducts.run("brados", ["--experimental-dump-help"], environment: ["HOME": home.url.path])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let page = try page()
        var missing: [String] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let names = [command["commandName"] as? String ?? ""] + (command["aliases"] as? [String] ?? [])
            if !path.isEmpty, !names.contains(where: { page.contains(".It Em \($0)") }) { missing.append(path.joined(separator: " ")) }
            // A hidden option (kept for old scripts, `search -F`) is in neither --help nor the page.
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool != false {
                for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                    let flag = name["name"] as? String ?? ""
                    if !page.contains("Fl -\(flag)"), !page.contains(", -\(flag)") { missing.append((path + ["--\(flag)"]).joined(separator: " ")) }
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub, path + [sub["commandName"] as? String ?? "?"]) }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        #expect(missing.isEmpty, "not in man/brados.1: \(missing.prefix(10)); run scripts/generate-man.sh")
    }

    @Test("every command's --help has examples")
    func helpHasExamples() throws {
        let dump = try BuiltProducts.run("brados", ["--experimental-dump-help"], environment: ["HOME": home.url.path])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var without: [String] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            if !path.isEmpty, path.last != "help", !((command["discussion"] as? String) ?? "").contains("Example") { without.append(path.joined(separator: " ")) }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub, path + [sub["commandName"] as? String ?? "?"]) }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        #expect(without.isEmpty, "no examples in --help: \(without)")
    }

    @Test("ENVIRONMENT names every BRADOS_* variable; CACHING, FILES, EXIT STATUS and EXAMPLES are there")
    func sections() throws {
        let page = try page()
        for section in ["CACHING", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES"] { #expect(page.contains(".Sh \(section)\n"), "\(section)") }
        let list = try BuiltProducts.run("brados", ["config", "list"], environment: ["HOME": home.url.path, "BRADOS_HOME": home.url.path])
        let variables = Set(list.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter { $0.hasPrefix("BRADOS_") }.map(String.init))
        #expect(variables.count >= 15)
        for variable in variables { #expect(page.contains(variable), "\(variable) is not in ENVIRONMENT") }
        for code in ["0", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "64", "130"] { #expect(page.contains(".It \(code)\n"), "exit status \(code)") }
    }

    @Test("the exit-code table is one: the README's, the man page's and the root --help's are the binary's (make readme, make man)")
    func exitCodesAgree() throws {
        let environment = ["HOME": home.url.path, "BRADOS_HOME": home.url.path]
        let markdown = try BuiltProducts.run("brados", ["exit-codes", "--format", "markdown"], environment: environment).stdout
        let mdoc = try BuiltProducts.run("brados", ["exit-codes", "--format", "mdoc"], environment: environment).stdout
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(markdown.contains("| 130 | Interrupted"))
        #expect(readme.contains("-->\n" + markdown + "<!-- end exit-codes -->"), "README.md's exit codes are not the binary's: run make readme")
        #expect(try page().contains(mdoc), "man/brados.1's EXIT STATUS is not the binary's: run make man")
        let help = try BuiltProducts.run("brados", ["--help"], environment: environment).stdout.replacingOccurrences(of: "\n", with: " ")
        let codes = markdown.split(separator: "\n").compactMap { $0.split(separator: "|").first.map { $0.trimmingCharacters(in: .whitespaces) } }.filter { Int($0) != nil }
        #expect(codes.count == 16)
        for code in codes { #expect(help.contains(" \(code) "), "exit code \(code) is not in brados --help") }
    }

    @Test("renders with man -l at 80 columns without a warning")
    func renders() throws {
        let process = Process()
        process.executableURL = try SystemCommand.url("man")
        process.arguments = ["--warnings", "-l", Self.repository.appendingPathComponent("man/brados.1").path]
        process.environment = ["MANWIDTH": "80", "PATH": "/usr/bin:/bin", "MANPAGER": "cat", "PAGER": "cat"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let warnings = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(text.contains("CACHING") && text.contains("brados cache export"))
        // A discussion's lines stay lines: a heading never runs on from the list above it.
        let lines = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("Flags the domains add:"), "sync's flag heading starts a line of its own")
        #expect(!lines.contains { $0.contains("the plan Flags") || $0.contains("plan Flags the domains") }, "no run-on lines")
        // FILES names where the demo backend's data are, as docs/configuration.md does.
        #expect(text.contains(".embedded/") && !text.contains("embedded-server"), "the demo backend's folder")
    }
}
