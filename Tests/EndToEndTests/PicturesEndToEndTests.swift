import Foundation
import Testing
import TestSupport

/// Covers and the weight trend end to end: the built `brados` against a `brados-server`
/// process, through a pipe and inside a pseudo-terminal that answers like kitty, an xterm
/// with sixel, a terminal without pixel graphics, or one that does not answer
/// (`Tests/TestSupport/fake-terminal.py`).
@Suite("End to end: pictures", .serialized, .ownThread)
struct PicturesEndToEndTests {
    let home = TemporaryDirectory("e2e-pictures")
    static let escape = "\u{1B}"

    func environment(_ server: ServerProcess, _ extra: [String: String]) -> [String: String] {
        ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "TERM": "xterm-256color"]
            .merging(extra) { $1 }
    }

    func brados(_ arguments: [String], _ server: ServerProcess, extra: [String: String] = [:], stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: environment(server, extra), stdin: stdin)
    }

    /// `brados ARGUMENTS` inside a pseudo-terminal of `size` that answers as `answers`; what
    /// it wrote to the terminal (carriage returns dropped).
    func terminal(_ arguments: [String], _ server: ServerProcess, answers: String, size: String = "40x120",
                  extra: [String: String] = [:], pipeThrough filter: String? = nil, cell: String = "10x20",
                  reportsCells: Bool = true) throws -> (status: Int32, screen: String, seconds: Double) {
        let started = Date()
        let brados = [BuiltProducts.url("brados").path] + arguments
        // With a filter, brados's stdout is a pipe into it, in the same terminal.
        let command = filter.map { filter in ["/bin/sh", "-c", "\"$0\" \"$@\" | " + filter] + brados } ?? brados
        let result = try FakeTerminal.run(command, options: ["--answers", answers, "--size", size, "--cell", cell] + (reportsCells ? [] : ["--no-cell-report"]),
                                          environment: environment(server, extra))
        return (result.status, result.stdout.replacingOccurrences(of: "\r", with: ""), Date().timeIntervalSince(started))
    }

    func signIn(_ server: ServerProcess) throws {
        let result = try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo")
        #expect(result.status == 0, "\(result.stderr)")
    }

    static func blocks(_ text: String) -> Int { text.unicodeScalars.filter { (0x2580...0x259F).contains($0.value) }.count }
    static func braille(_ text: String) -> Int { text.unicodeScalars.filter { (0x2801...0x28FF).contains($0.value) }.count }

    @Test("through a pipe, with --json and with NO_COLOR no escape sequence is written; --art symbols draws plain symbols into a pipe")
    func noEscapesWherePicturesDoNotBelong() throws {
        let server = try ServerProcess()
        try signIn(server)
        let piped = try brados(["library", "show", "1001"], server)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.contains("title") && !piped.stdout.contains(Self.escape) && Self.blocks(piped.stdout) == 0)
        let json = try brados(["library", "show", "1001", "--json"], server, extra: ["KITTY_WINDOW_ID": "1"])
        #expect(!json.stdout.contains(Self.escape) && json.stdout.contains("\"artwork\""))
        let symbols = try brados(["library", "show", "1001", "--art", "symbols"], server, extra: ["COLUMNS": "80", "LINES": "44"])
        #expect(!symbols.stdout.contains(Self.escape), "symbols into a pipe are plain")
        var lines = symbols.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast() // after the last newline
        // Its text alternative first: what the blocks are.
        #expect(lines.first?.hasPrefix("Cover: ") == true && lines.first?.contains(" by ") == true, "\(lines.first ?? "")")
        // Above the details on 80×44, the caption, the cover and the details fit the height with the prompt.
        #expect(lines.count <= 40 && lines.allSatisfy { $0.count <= 80 }, "\(lines.count) lines, widest \(lines.map(\.count).max() ?? 0)")
        lines = lines.dropFirst()
        #expect(lines.first?.count ?? 0 > 50, "a cover wider than the one beside: \(lines.first ?? "")")
        #expect(Self.blocks(symbols.stdout) > 500)
        let noColour = try brados(["library", "show", "1001", "--art", "symbols"], server, extra: ["NO_COLOR": "1"])
        #expect(!noColour.stdout.contains(Self.escape) && Self.blocks(noColour.stdout) > 100)
        let plan = try brados(["plan", "show", "--json"], server)
        #expect(!plan.stdout.contains(Self.escape) && Self.braille(plan.stdout) == 0)
        #expect(try brados(["config", "set", "display.art", "pictures"], server).status != 0, "only a mode is a valid setting")
    }

    @Test("on a terminal: kitty's protocol when it answers kitty's query, sixel when DA1 lists 4, symbols when neither or no answer; tmux gets symbols unless a mode is named")
    func detectsTheTerminal() throws {
        let server = try ServerProcess()
        try signIn(server)
        let kitty = try terminal(["library", "show", "1001"], server, answers: "kitty")
        #expect(kitty.status == 0)
        #expect(kitty.screen.contains("\(Self.escape)_Ga=T,") && kitty.screen.contains("\(Self.escape)7"), "a kitty image, placed with the cursor saved")
        #expect(kitty.screen.contains("Moon Garden") || kitty.screen.contains("title"))
        let byEnvironment = try terminal(["library", "show", "1001"], server, answers: "silent", extra: ["KITTY_WINDOW_ID": "3"])
        #expect(byEnvironment.screen.contains("\(Self.escape)_Ga=T,"), "KITTY_WINDOW_ID decides without asking")
        #expect(!byEnvironment.screen.contains("\(Self.escape)[c"), "and nothing is asked")
        let sixel = try terminal(["library", "show", "1001"], server, answers: "sixel")
        #expect(sixel.screen.contains("\(Self.escape)P") && sixel.screen.contains("q\""), "a sixel image (DCS … q)")
        let noCellSize = try terminal(["library", "show", "1001"], server, answers: "sixel", cell: "0x0")
        #expect(!noCellSize.screen.contains("\(Self.escape)P") && Self.blocks(noCellSize.screen) > 200, "sixel without a cell size: symbols")
        let plain = try terminal(["library", "show", "1001"], server, answers: "plain")
        #expect(!plain.screen.contains("\(Self.escape)_Ga=") && !plain.screen.contains("\(Self.escape)P"))
        #expect(Self.blocks(plain.screen) > 200 && plain.screen.contains("\(Self.escape)[38;5;"), "256-colour symbols")
        let silent = try terminal(["library", "show", "1001"], server, answers: "silent")
        #expect(Self.blocks(silent.screen) > 200 && silent.seconds < 10, "a silent terminal costs the query's short wait only")
        let tmux = try terminal(["library", "show", "1001"], server, answers: "kitty", extra: ["TMUX": "/tmp/tmux-0/default,1,0", "TERM": "tmux-256color"])
        #expect(!tmux.screen.contains("\(Self.escape)_G") && Self.blocks(tmux.screen) > 200, "inside tmux: symbols, and no query")
        let passthrough = try terminal(["library", "show", "1001", "--art", "kitty"], server, answers: "silent",
                                       extra: ["TMUX": "/tmp/tmux-0/default,1,0", "TERM": "tmux-256color"])
        #expect(passthrough.screen.contains("\(Self.escape)Ptmux;\(Self.escape)\(Self.escape)_G"), "a named mode goes through tmux's passthrough")
        let none = try terminal(["library", "show", "1001"], server, answers: "kitty", extra: ["BRADOS_ART": "none"])
        #expect(!none.screen.contains("\(Self.escape)_G") && Self.blocks(none.screen) == 0 && none.screen.contains("title"))
        let noColour = try terminal(["library", "show", "1001", "--art", "symbols"], server, answers: "plain", extra: ["NO_COLOR": "1"])
        #expect(!noColour.screen.contains("\(Self.escape)[") && Self.blocks(noColour.screen) > 100, "NO_COLOR: symbols without colour")
        let doctor = try terminal(["--offline", "doctor"], server, answers: "sixel")
        #expect(doctor.screen.contains("pictures mode") && doctor.screen.contains("sixel") && doctor.screen.contains("DA1"), "\(doctor.screen)")
        // `brados doctor | tail` still asks the terminal it runs in, and reads its cell size
        // from it (xterm answers no CSI 16 t by default).
        let piped = try terminal(["--offline", "doctor"], server, answers: "sixel", pipeThrough: "tail -3", reportsCells: false)
        #expect(piped.screen.contains("pictures mode: sixel") && piped.screen.contains("DA1"), "\(piped.screen)")
    }

    @Test("a cover that does not decode is drawn as the placeholder (exit 0) and dropped from the cache; a missing one offline too")
    func brokenCoverIsThePlaceholder() async throws {
        let server = try ServerProcess()
        try signIn(server)
        // The server answers the artwork with a PNG signature and nothing decodable after it:
        // it passes the cache's image check, and cannot be drawn.
        let broken = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0x42, count: 64)
        try await server.addFault(#"{"match": "GET /photo/:/transcode", "count": 1, "bodyBase64": "\#(broken.base64EncodedString())"}"#)
        let shown = try brados(["library", "show", "1002", "--art", "symbols"], server)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("♪") && shown.stdout.contains("┌"), "the placeholder: \(shown.stdout)")
        let again = try brados(["library", "show", "1002", "--art", "symbols"], server)
        #expect(!again.stdout.contains("♪") && Self.blocks(again.stdout) > 100, "dropped, so fetched again and drawn")

        #expect(try brados(["library", "albums", "--limit", "1"], server).status == 0, "the snapshot holds the details offline")
        #expect(try brados(["library", "show", "1003", "--art", "none"], server).status == 0)
        #expect(try brados(["library", "cache", "prune", "--max-size", "0"], server).status == 0)
        let offline = try brados(["--offline", "library", "show", "1003", "--art", "symbols"], server)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stdout.contains("♪"), "not cached and offline: the placeholder, not an error")
    }

    @Test("albums --covers: a grid of the first screen's covers with titles under them; through a pipe without --art, the listing")
    func coverGrid() throws {
        let server = try ServerProcess()
        try signIn(server)
        let titles = try #require((try JSONSerialization.jsonObject(with: Data(try brados(["library", "albums", "--limit", "8", "--json"], server).stdout.utf8))
                                   as? [String: Any])?["albums"] as? [[String: Any]]).compactMap { $0["title"] as? String }
        let grid = try brados(["library", "albums", "--covers", "--art", "symbols"], server, extra: ["COLUMNS": "90", "LINES": "30"])
        #expect(grid.status == 0, "\(grid.stderr)")
        #expect(!grid.stdout.contains(Self.escape) && Self.blocks(grid.stdout) > 400)
        // 90 columns hold 4 covers of 20 a row; 30 lines two rows of 10 + a caption.
        let shownTitles = titles.prefix(8).filter { grid.stdout.contains(String($0.prefix(19))) }
        #expect(shownTitles.count == 8, "\(grid.stdout)")
        let listing = try brados(["library", "albums", "--covers", "--limit", "3"], server)
        #expect(listing.stdout.contains("KEY") && listing.stderr.contains("no covers"), "\(listing.stderr)")
        let kitty = try terminal(["library", "albums", "--covers", "--limit", "4"], server, answers: "kitty", size: "30x100")
        let images = kitty.screen.components(separatedBy: "\(Self.escape)_Ga=T,").count - 1
        let placeholders = kitty.screen.components(separatedBy: "♪").count - 1
        #expect(images >= 1 && images + placeholders == 4, "four covers: \(images) kitty images, \(placeholders) without artwork")
    }

    @Test("plan show plots the weights with the target and the last value; a queued weight is drawn dotted and marked; plan history lists them; today shows a sparkline")
    func weightTrend() throws {
        let server = try ServerProcess()
        try signIn(server)
        let shown = try brados(["plan", "show", "--art", "symbols"], server)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("target 78.0 kg") && shown.stdout.contains("86.0 kg") && Self.braille(shown.stdout) > 40, "\(shown.stdout)")
        #expect(shown.stdout.contains("└──"), "a time axis")
        let piped = try brados(["plan", "show"], server)
        #expect(piped.stdout.contains("Weight 86.0 kg") && Self.braille(piped.stdout) == 0, "no plot through a pipe")
        let history = try JSONSerialization.jsonObject(with: Data(try brados(["plan", "history", "--json"], server).stdout.utf8)) as? [String: Any]
        let points = try #require(history?["points"] as? [[String: Any]])
        #expect(points.count >= 40 && points.allSatisfy { $0["queued"] as? Bool == false })
        #expect(history?["targetWeight"] as? Double == 78)

        #expect(try brados(["--offline", "plan", "weight", "84.2"], server).status == 0)
        let queued = try brados(["--offline", "plan", "show", "--art", "symbols"], server)
        #expect(queued.stdout.contains("84.2 kg (queued)") && queued.stdout.contains("queued, not sent yet"), "\(queued.stdout)")
        let listed = try brados(["--offline", "plan", "history"], server)
        #expect(listed.stdout.contains("84.2") && listed.stdout.contains("queued"))
        let coloured = try terminal(["--offline", "plan", "show"], server, answers: "plain")
        #expect(coloured.screen.contains("\(Self.escape)[33m"), "queued weights in yellow on a terminal")
        // The sparkline is a picture: through a pipe its text line, with --art symbols drawn.
        let sparkline: (String) -> Bool = { $0.unicodeScalars.contains { (0x2581...0x2588).contains($0.value) } }
        let today = try brados(["--offline", "today"], server)
        #expect(today.stdout.contains("Weight ") && today.stdout.contains("84.2 kg") && !sparkline(today.stdout), "\(today.stdout)")
        let drawn = try brados(["--offline", "today", "--art", "symbols"], server)
        #expect(drawn.stdout.contains("Weight ") && sparkline(drawn.stdout), "\(drawn.stdout)")
        #expect(sparkline(try brados(["--offline", "today", "--art", "symbols"], server, extra: ["BRADOS_ACCESSIBLE": "1"]).stdout),
                "--art wins over the accessible mode")
        #expect(!sparkline(try brados(["--offline", "today"], server, extra: ["BRADOS_ART": "none", "CLICOLOR_FORCE": "1"]).stdout))

        #expect(try brados(["plan", "sync"], server).status == 0)
        let sent = try JSONSerialization.jsonObject(with: Data(try brados(["plan", "history", "--json"], server).stdout.utf8)) as? [String: Any]
        let last = try #require((sent?["points"] as? [[String: Any]])?.last)
        #expect(last["weight"] as? Double == 84.2 && last["queued"] as? Bool == false, "sent, and now in the service's history")
    }

    /// `brados ARGUMENTS` with `library` hidden as it is on a system without its package: in a
    /// private mount namespace, /dev/null bound over the file the loader finds (needs root, as
    /// CI has; reliability/security.py hides libarchive the same way).
    func withoutLibrary(_ soname: String, _ arguments: [String], _ server: ServerProcess) throws -> BuiltProducts.Result {
        let listing = try SystemCommand.run("ldconfig", ["-p"]).stdout
        let path = try #require(listing.split(separator: "\n").first { $0.contains("\(soname) (") && $0.contains("x86-64") }?
            .components(separatedBy: "=> ").last, "\(soname) is not installed (scripts/ensure-deps.sh installs it)")
        let script = "mount --bind /dev/null \"$0\" && exec \"$@\""
        return try SystemCommand.run("unshare", ["-m", "sh", "-c", script, path, BuiltProducts.url("brados").path] + arguments,
                                     environment: environment(server, ["COLUMNS": "80", "LINES": "30"]))
    }

    @Test("without Chafa or TurboJPEG (the package's Recommends): the album with a placeholder, one notice naming the package, doctor warns and exits 0, the plot still drawn",
          .enabled(if: getuid() == 0, "hiding a system library takes a private mount namespace: root, as in CI"))
    func withoutThePictureLibraries() throws {
        let server = try ServerProcess()
        try signIn(server)
        for (soname, package) in [("libchafa.so.0", "libchafa0"), ("libturbojpeg.so.0", "libturbojpeg0")] {
            let show = try withoutLibrary(soname, ["library", "show", "1001", "--art", "symbols"], server)
            #expect(show.status == 0, "\(soname): \(show.stderr)")
            #expect(show.stdout.contains("Moon Garden") && show.stdout.contains("♪") && Self.blocks(show.stdout) < 50,
                    "\(soname): the details and the placeholder, no picture")
            let notices = show.stderr.components(separatedBy: "covers are drawn as placeholders").count - 1
            #expect(notices == 1 && show.stderr.contains("\(soname) could not be loaded") && show.stderr.contains("sudo apt install \(package)"),
                    "\(soname): \(show.stderr)")
            let grid = try withoutLibrary(soname, ["library", "albums", "--covers", "--art", "symbols"], server)
            #expect(grid.status == 0 && grid.stderr.components(separatedBy: "covers are drawn as placeholders").count - 1 == 1,
                    "\(soname): a grid of placeholders says it once: \(grid.stderr)")
            let doctor = try withoutLibrary(soname, ["doctor"], server)
            #expect(doctor.status == 0, "\(soname): a missing recommended library is a warning: \(doctor.stdout)")
            #expect(doctor.stdout.contains("warn  pictures \(soname): not loaded") && doctor.stdout.contains("sudo apt install \(package)"))
        }
        let plot = try withoutLibrary("libchafa.so.0", ["plan", "show", "--art", "symbols"], server)
        #expect(plot.status == 0 && Self.braille(plot.stdout) > 20 && !plot.stderr.contains("placeholders"), "a plot is text: \(plot.stderr)")
        let normal = try brados(["library", "show", "1001", "--art", "symbols"], server, extra: ["COLUMNS": "80", "LINES": "30"])
        #expect(Self.blocks(normal.stdout) > 100 && normal.stderr.isEmpty, "the control: with the libraries, a cover (beside the details on 80×30) and no notice")
    }
}
