import Foundation
import Testing
import TestSupport

/// brados read in other scripts, on narrow terminals and by a screen reader: the built
/// `brados` against a `brados-server` whose demo data holds Japanese, Chinese, Hebrew and
/// emoji (the seed's visits and library), through a pseudo-terminal and through a pipe.
/// Widths are measured by Python's wcwidth, not by brados's own code.
@Suite("End to end: every script, every width, a screen reader", .serialized, .ownThread)
struct ReadingEndToEndTests {
    let home = TemporaryDirectory("e2e-reading")

    func environment(_ server: ServerProcess, _ extra: [String: String] = [:]) -> [String: String] {
        ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "PATH": "/usr/bin:/bin",
         "TERM": "xterm-256color", "LANG": "C.UTF-8"].merging(extra) { $1 }
    }

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil, extra: [String: String] = [:]) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: environment(server, extra), stdin: stdin)
    }

    /// What reached a pseudo-terminal of `columns` columns (stderr too with `stderr`), its
    /// line ends as the terminal got them (`\r\n`).
    func screen(_ arguments: [String], _ server: ServerProcess, columns: Int, stderr: Bool = false, extra: [String: String] = [:]) throws -> BuiltProducts.Result {
        try FakeTerminal.run([BuiltProducts.url("brados").path] + arguments,
                             options: ["--answers", "plain", "--size", "40x\(columns)"] + (stderr ? ["--stderr"] : []),
                             environment: environment(server, extra))
    }

    /// Each line's width as Python's wcwidth measures it (escape sequences would count -1).
    func widths(_ text: String) throws -> [Int] {
        let folder = TemporaryDirectory("e2e-reading-widths")
        let file = folder.path("screen.txt")
        try text.replacingOccurrences(of: "\r", with: "").write(to: file, atomically: true, encoding: .utf8)
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let python = path.split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/python3"
        // Colours (SGR) take no column: removed before measuring; any other escape counts -1.
        let script = """
            import re, sys, wcwidth
            for line in open(sys.argv[1], encoding='utf-8').read().split('\\n'):
                print(wcwidth.wcswidth(re.sub('\\x1b\\[[0-9;]*m', '', line)))
            """
        let result = try BuiltProducts.run(executable: URL(fileURLWithPath: python), ["-c", script, file.path], environment: [:])
        #expect(result.status == 0, "wcwidth: \(result.stderr)")
        return withExtendedLifetime(folder) { result.stdout.split(separator: "\n").compactMap { Int($0) } }
    }

    func signIn(_ server: ServerProcess) throws {
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo").status == 0)
    }

    /// The control characters `cat -v` would show: everything below a space but a newline
    /// (a pseudo-terminal's `\r\n` counted as a newline), DEL and the C1 controls.
    static func controls(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").unicodeScalars
            .filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
            .map { String(format: "U+%04X", $0.value) }
    }

    @Test("every table command fits 40, 60, 80 and 120 columns; at 40 a table is blocks of key and value; Japanese wraps with kinsoku")
    func everyWidth() throws {
        let server = try ServerProcess()
        try signIn(server)
        for fill in [["visits", "list"], ["coach", "conversations"], ["library", "albums"], ["mealplan", "show"], ["plan", "show"]] {
            #expect(try brados(fill, server).status == 0, "\(fill)")
        }
        let listed = try JSONSerialization.jsonObject(with: Data(try brados(["coach", "conversations", "--json"], server).stdout.utf8)) as? [String: Any]
        let conversation = try #require((listed?["conversations"] as? [[String: Any]])?.first?["id"] as? String)
        let commands: [[String]] = [["visits", "list"], ["coach", "show", conversation, "--last", "6"], ["coach", "conversations"], ["library", "albums", "--limit", "30"], ["library", "collections"],
                                    ["mealplan", "show"], ["mealplan", "status"], ["plan", "history"], ["config", "list"], ["cache", "stats"],
                                    ["exit-codes"], ["plugins", "list"], ["search", "東京"], ["today", "--art", "none"]]
        for columns in [40, 60, 80, 120] {
            for command in commands {
                let shown = try screen(command + ["--no-pager"], server, columns: columns)
                #expect(shown.status == 0, "\(command) at \(columns): \(shown.stderr)")
                // A path longer than the screen is left whole (a person copies it): a line of one word.
                let lines = shown.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n", omittingEmptySubsequences: false)
                let measured = try widths(shown.stdout).enumerated().filter { index, _ in
                    index >= lines.count || lines[index].trimmingCharacters(in: .whitespaces).contains(" ")
                }.map(\.element)
                #expect(!measured.isEmpty && measured.allSatisfy { $0 >= 0 && $0 <= columns },
                        "\(command) at \(columns): widths \(measured)\n\(shown.stdout)")
            }
        }
        // At 40 columns the visits are blocks, the Japanese note wrapped between characters.
        let narrow = try screen(["visits", "list", "--no-pager"], server, columns: 40, extra: ["NO_COLOR": "1"]).stdout.replacingOccurrences(of: "\r", with: "")
        #expect(narrow.contains("\nPLACE     東京駅前クリニック\n"), "\(narrow)")
        let lines = narrow.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(!lines.contains { ["、", "。", "，", "？", "！", "）", "」"].contains($0.first.map(String.init) ?? "") }, "\(narrow)")
        // The family emoji and the flag are never cut in half.
        for columns in 20...44 {
            let row = try screen(["visits", "list", "--no-pager"], server, columns: columns).stdout
            let indicators = row.unicodeScalars.filter { (0x1F1E6...0x1F1FF).contains($0.value) }.count
            #expect(!row.contains("\u{200D}…") && !row.contains("\u{200D}\n") && indicators % 2 == 0, "at \(columns): \(row)")
        }
        // Hebrew: the isolate around a Latin name passes and is closed; an override would be shown.
        let wide = try brados(["visits", "list"], server).stdout
        #expect(wide.contains("מרפאה \u{2068}Dr. Cohen\u{2069}") && !wide.contains("<U+2068>"), "\(wide)")
        // Search: words inside Chinese and Japanese runs, and emoji.
        for query in ["東京", "クリニック", "血液検査", "ランニング", "北京", "体检", "🇯🇵", "神隠し"] {
            let found = try brados(["search", query, "--json"], server)
            let document = try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [String: Any]
            #expect((document?["results"] as? [Any])?.isEmpty == false, "\(query): \(found.stdout.prefix(300)) \(found.stderr)")
        }
        let snippet = try brados(["search", "Mill"], server).stdout
        #expect(snippet.contains("14 Mill Lane · "), "fields kept apart: \(snippet)")
    }

    @Test("a screen reader on TERM=dumb: no spinner, escape sequence or pager, through a pseudo-terminal and a pipe; words for symbols")
    func screenReader() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["visits", "list"], server).status == 0)
        #expect(try brados(["plan", "show"], server).status == 0)
        try await server.addFault(#"{"match":"GET /api/visits","latencyMs":2500}"#)
        let reader = ["TERM": "dumb", "NO_COLOR": "1", "BRADOS_ACCESSIBLE": "1"]
        for command in [["visits", "list", "--refresh"], ["library", "show", "1001"], ["today"], ["plan", "show"], ["coach", "conversations"]] {
            let heard = try screen(command, server, columns: 80, stderr: true, extra: reader)
            #expect(heard.status == 0, "\(command): \(heard.stdout)")
            #expect(Self.controls(heard.stdout).isEmpty, "\(command): \(Self.controls(heard.stdout).prefix(10))\n\(heard.stdout)")
            #expect(!heard.stdout.contains("Press RETURN") && !heard.stdout.contains("⠋") && !heard.stdout.contains("≈") && !heard.stdout.contains(" · "),
                    "\(command): \(heard.stdout)")
            let piped = try brados(command, server, extra: reader)
            #expect(Self.controls(piped.stdout + piped.stderr).isEmpty, "\(command) piped")
        }
        // The slow refresh is said once, as a line, not drawn.
        let waited = try screen(["visits", "list", "--refresh"], server, columns: 80, stderr: true, extra: reader).stdout
        #expect(waited.components(separatedBy: "brados: ").count <= 4, "\(waited)")
        // A cover is its text line; today has no sparkline; plan show has its summary line.
        let cover = try screen(["library", "show", "1001"], server, columns: 80, extra: reader).stdout
        #expect(!cover.unicodeScalars.contains { (0x2580...0x259F).contains($0.value) } && cover.contains("title"), "\(cover)")
        // TERM=dumb alone: no spinner, no pager; NO_COLOR alone on a terminal: no SGR at all, resets included.
        let dumb = try screen(["visits", "list", "--refresh"], server, columns: 80, stderr: true, extra: ["TERM": "dumb"]).stdout
        #expect(!dumb.contains("⠋") && !dumb.contains("\u{1B}"), "\(dumb)")
        let noColour = try screen(["visits", "list", "--refresh", "--no-pager"], server, columns: 80, stderr: true, extra: ["NO_COLOR": "1"]).stdout
        #expect(!noColour.contains("\u{1B}[m") && !noColour.contains("\u{1B}[0m") && !noColour.contains("\u{1B}[1m"), "\(noColour)")
        #expect(try brados(["config", "set", "display.progress", "off"], server).status == 0)
        let off = try screen(["visits", "list", "--refresh", "--no-pager"], server, columns: 80, stderr: true).stdout
        #expect(!off.contains("⠋") && off.contains("brados: "), "display.progress off: the wait said once\n\(off)")
        #expect(try brados(["config", "set", "display.progress", "on"], server).status == 0)
        // --help names what a reader needs.
        let help = try brados(["--help"], server).stdout
        for word in ["NO_COLOR", "--art", "-q", "BRADOS_ACCESSIBLE", "display.progress"] { #expect(help.contains(word), "\(word)") }
    }
}
