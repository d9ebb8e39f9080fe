import Foundation
import Testing
import TestSupport

/// Upgrading loses nothing: a home that brados 0.1.0 left (Tests/Fixtures/upgrade-0.1.0) is
/// read by this version offline, migrated, used online against its embedded demo backend,
/// and exported whole.
@Suite("End to end: upgrading from 0.1.0", .serialized, .ownThread)
struct UpgradeEndToEndTests {
    let home = TemporaryDirectory("e2e-upgrade")
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/upgrade-0.1.0")

    /// The home as 0.1.0 left it, unpacked with its modes (its folders 0700, its files 0600).
    func unpack() throws {
        let result = try SystemCommand.run("tar", ["--no-overwrite-dir", "-xzf", Self.fixture.appendingPathComponent("home.tar.gz").path, "-C", home.url.path])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// brados with that home and nothing else: the XDG folders under it, as for its user.
    func brados(_ arguments: [String]) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: ["HOME": home.url.path, "LANG": "C.UTF-8", "COLUMNS": "120"])
    }

    /// The commands and the text each must print (expected.txt, which check-package.sh also reads).
    static func expectations() throws -> [(arguments: [String], text: String)] {
        try String(contentsOf: fixture.appendingPathComponent("expected.txt"), encoding: .utf8)
            .split(separator: "\n").map { line in
                let fields = line.split(separator: "\t", maxSplits: 1).map(String.init)
                return (fields[0].split(separator: " ").map(String.init), fields[1])
            }
    }

    @Test("0.1.0's cache is read offline, its library snapshot moved into the database, its queued weight sent, and the whole cache exported, verified and imported")
    func fromZeroOneZero() throws {
        try unpack()
        let data = home.url.appendingPathComponent(".local/share/brados/users/default")
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("library/snapshot.json").path), "the fixture is 0.1.0's")
        // Offline, before anything else: every domain reads what 0.1.0 cached.
        for (arguments, text) in try Self.expectations() {
            let result = try brados(arguments)
            #expect(result.status == 0 && result.stdout.contains(text), "brados \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        // The snapshot became the library's database, and nothing of it was lost.
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("library/library.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("library/snapshot.json").path))
        let albums = try brados(["--offline", "library", "albums"]).stdout
        #expect(albums.hasPrefix("304 albums"), "\(albums.prefix(80))")
        // Online, against the embedded backend 0.1.0 set up (its database migrated too).
        let sync = try brados(["plan", "sync"])
        #expect(sync.status == 0 && sync.stdout.contains("Sent weight 84.2 kg"), "\(sync.stdout) \(sync.stderr)")
        let history = try brados(["plan", "history"])
        #expect(history.stdout.contains("84.2") && history.stdout.contains("sent"), "\(history.stdout)")
        #expect(!(try brados(["plan", "pending"]).stdout.contains("84.2")), "the weight left the queue once sent")
        let refreshed = try brados(["library", "albums", "--refresh"])
        #expect(refreshed.status == 0 && refreshed.stdout.hasPrefix("304 albums"), "\(refreshed.stderr)")
        let search = try brados(["search", "wind"])
        #expect(search.status == 0 && search.stdout.contains("Evening wind-down routine"), "\(search.stdout) \(search.stderr)")
        // The whole cache leaves in one archive that verifies, and comes back under another name.
        let archive = home.url.appendingPathComponent("upgraded.tar.zst").path
        #expect(try brados(["cache", "export", "-o", archive]).status == 0)
        let verify = try brados(["cache", "verify", archive])
        #expect(verify.status == 0 && ["mealplan", "visits", "library", "coach", "plan"].allSatisfy { verify.stdout.contains($0) }, "\(verify.stdout)")
        #expect(try brados(["cache", "import", archive, "--as", "bob"]).status == 0)
        for (arguments, text) in try Self.expectations() where !arguments.contains("pending") && !arguments.contains("plan") {
            let result = try brados(["--profile", "bob"] + arguments)
            #expect(result.stdout.contains(text), "bob: brados \(arguments.joined(separator: " ")): \(result.stderr)")
        }
    }
}
