import Foundation
import Testing
import TestSupport

/// Long output on a terminal goes through the pager (`Tests/TestSupport/fake-terminal.py` is the
/// terminal); the pager here is a `sed` that marks every line it passes.
@Suite("End to end: the pager", .ownThread)
struct PagerEndToEndTests {
    let home = TemporaryDirectory("e2e-pager")

    /// Runs `command` in a pseudo-terminal; what reached the terminal, without carriage returns.
    func terminal(_ command: [String], pager: String? = "sed s/^/PAGED:/") throws -> (status: Int32, screen: String) {
        var environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "PATH": "/usr/bin:/bin"]
        environment["BRADOS_PAGER"] = pager
        let result = try FakeTerminal.run(command, environment: environment)
        return (result.status, result.stdout.replacingOccurrences(of: "\r", with: ""))
    }

    @Test("config list on a terminal goes through BRADOS_PAGER to its last line, and brados waits for it; --no-pager and a pipe never page")
    func pages() throws {
        let brados = BuiltProducts.url("brados").path
        let paged = try terminal([brados, "config", "list"])
        #expect(paged.status == 0)
        let lines = paged.screen.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines.count > 10 && lines.allSatisfy { $0.hasPrefix("PAGED:") }, "\(paged.screen)")
        // The list's last setting is the pictures feature's: the whole list reached the pager before brados exited
        // (its meaning wrapped under its column on lines of its own after it).
        let keys = lines.filter { !$0.dropFirst("PAGED:".count).hasPrefix(" ") }
        #expect(keys.last?.hasPrefix("PAGED:display.art") == true, "\(keys.last ?? "")")
        let straight = try terminal([brados, "config", "list", "--no-pager"])
        #expect(straight.status == 0 && straight.screen.contains("display.art") && !straight.screen.contains("PAGED:"))
        let piped = try terminal(["/bin/sh", "-c", "\"$0\" config list | cat", brados])
        #expect(piped.status == 0 && piped.screen.contains("display.art") && !piped.screen.contains("PAGED:"))
        for off in ["", "cat"] {
            let none = try terminal([brados, "config", "list"], pager: off)
            #expect(none.screen.contains("display.art") && !none.screen.contains("PAGED:"), "BRADOS_PAGER='\(off)'")
        }
    }

    @Test("a command that never prints much (auth status) is never paged")
    func shortCommands() throws {
        let result = try terminal([BuiltProducts.url("brados").path, "auth", "status"])
        #expect(result.screen.contains("Not signed in.") && !result.screen.contains("PAGED:"))
    }

    @Test("library albums on a terminal is paged to its last album; --prefetch then fetches the first screen in the background")
    func libraryAlbums() async throws {
        let brados = BuiltProducts.url("brados").path
        // The embedded backend's library (304 albums): the listing reaches the pager whole.
        let paged = try terminal([brados, "library", "albums", "--prefetch"])
        #expect(paged.status == 0)
        let rows = paged.screen.split(separator: "\n").filter { $0.hasPrefix("PAGED:") }
        #expect(rows.count == 304 + 2, "\(rows.count) lines paged")
        let artwork = home.url.appendingPathComponent("cache/users/default/library")
        // Nothing drew progress over the pager: the first screen's covers arrive from a background process.
        #expect(!paged.screen.contains("fetching"), "\(paged.screen.suffix(300))")
        let arrived = await eventually {
            (FileManager.default.enumerator(atPath: artwork.path)?.allObjects.count ?? 0) > 10
        }
        #expect(arrived, "no artwork under \(artwork.path)")
        #expect(await eventually { !BuiltProducts.isRunning(home: home.url) })
        let straight = try terminal([brados, "library", "albums", "--no-pager", "--limit", "3"])
        #expect(straight.status == 0 && straight.screen.contains("albums 1–3 of 304") && !straight.screen.contains("PAGED:"), "\(straight.screen)")
    }
}
