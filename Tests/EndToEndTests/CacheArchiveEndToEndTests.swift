import Foundation
import Testing
import TestSupport

/// `brados cache export|verify|import` end to end: every domain's cache moves to another
/// profile through an archive and serves offline there.
@Suite("End to end: cache archives", .serialized, .ownThread)
struct CacheArchiveEndToEndTests {
    let home = TemporaryDirectory("e2e-archive")

    /// `waitForServer`: a read waits for its refresh (`refresh.wait`), so what it prints is the server's.
    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil, waitForServer: Bool = false) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ].merging(waitForServer ? ["BRADOS_REFRESH_WAIT": "60s"] : [:]) { $1 }, stdin: stdin)
    }

    func json(_ result: BuiltProducts.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\n\(result.stderr)")
    }

    @Test("export every domain, verify, import --as another profile: the same data offline; a damaged archive fails verify")
    func moveBetweenProfiles() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        for command in [["mealplan", "show"], ["visits", "list"], ["coach"], ["plan"], ["library", "albums"], ["library", "prefetch", "--rows", "2", "--columns", "3"]] {
            let result = try brados(command, server)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        let conversations = try json(try brados(["coach", "--json"], server))["conversations"] as? [[String: Any]] ?? []
        let conversation = try #require(conversations.first { $0["messageCount"] as? Int == 75 }?["id"] as? String)
        #expect(try brados(["coach", "show", conversation], server).status == 0)

        let archive = home.url.appendingPathComponent("backup.tar.zst")
        let export = try brados(["cache", "export", "-o", archive.path, "--json"], server)
        #expect(export.status == 0, "\(export.stderr)")
        let domains = (try json(export)["report"] as? [String: Any])?["domains"] as? [[String: Any]] ?? []
        #expect(Set(domains.filter { ($0["files"] as? Int ?? 0) > 0 }.compactMap { $0["name"] as? String })
                == ["mealplan", "visits", "coach", "plan", "library"])
        let verify = try brados(["cache", "verify", archive.path], server)
        #expect(verify.status == 0 && verify.stdout.contains("OK:"), "\(verify.stderr)")

        let imported = try brados(["cache", "import", archive.path, "--as", "laptop"], server)
        #expect(imported.status == 0, "\(imported.stderr)")
        for command in [["mealplan", "show", "--json"], ["visits", "list", "--json"], ["coach", "--json"], ["coach", "show", conversation, "--json"], ["plan", "--json"],
                        ["library", "albums", "--json"], ["library", "albums", "--limit", "3", "--offset", "2", "--json"]] {
            let original = try brados(["--offline"] + command, server)
            let copy = try brados(["--offline", "--profile", "laptop"] + command, server)
            #expect(copy.status == 0, "\(command): \(copy.stderr)")
            // Ages differ by the seconds between the two runs (and a notice says the age in words).
            let strip = { (text: String) in text.split(separator: "\n").filter { !$0.contains("ageSeconds") && !$0.contains("cachedAt") && !$0.contains("\"notice\"") }.joined(separator: "\n") }
            #expect(strip(copy.stdout) == strip(original.stdout), "\(command)")
        }
        // A second import needs --replace or --merge; --dry-run says what would change.
        let again = try brados(["cache", "import", archive.path, "--as", "laptop"], server)
        #expect(again.status == 64 && again.stderr.contains("--replace"))
        let dry = try brados(["cache", "import", archive.path, "--as", "laptop", "--dry-run"], server)
        #expect(dry.status == 0 && dry.stdout.contains("Would import"))

        // One flipped byte: verify fails (integrity, 8) and an import changes nothing.
        var bytes = try Data(contentsOf: archive)
        bytes[bytes.count / 2] ^= 0xFF
        let damaged = home.url.appendingPathComponent("damaged.tar.zst")
        try bytes.write(to: damaged)
        let bad = try brados(["cache", "verify", damaged.path], server)
        #expect(bad.status == 8, "\(bad.stdout) \(bad.stderr)")
        let badImport = try brados(["cache", "import", damaged.path, "--as", "laptop", "--replace"], server)
        #expect(badImport.status == 8)
        #expect(try brados(["--offline", "--profile", "laptop", "coach", "show", conversation], server).status == 0)
    }

    @Test("GNU tar, bsdtar and Python's tarfile list an exported archive, with no warning")
    func readableByOtherTools() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        for command in [["mealplan", "show"], ["visits", "list"], ["plan"]] { #expect(try brados(command, server).status == 0, "\(command)") }
        let archive = home.url.appendingPathComponent("backup.tar.gz")
        #expect(try brados(["cache", "export", "-o", archive.path, "--format", "tar.gz"], server).status == 0)
        #expect(try brados(["cache", "verify", archive.path], server).status == 0)
        let gnu = try SystemCommand.run("tar", ["-tzf", archive.path])
        #expect(gnu.status == 0 && gnu.stderr.isEmpty, "GNU tar: \(gnu.stderr)")
        let names = gnu.stdout.split(separator: "\n").map(String.init)
        #expect(names.first == "manifest.json" && names.contains("cache/mealplan/latest-session.json"), "\(names)")
        let bsd = try SystemCommand.run("bsdtar", ["-tf", archive.path])
        #expect(bsd.status == 0 && bsd.stderr.isEmpty && bsd.stdout.split(separator: "\n").map(String.init) == names, "bsdtar: \(bsd.stderr)")
        let python = try SystemCommand.run("python3", ["-c", "import sys, tarfile; print('\\n'.join(tarfile.open(sys.argv[1]).getnames()))", archive.path])
        #expect(python.status == 0 && python.stdout.split(separator: "\n").map(String.init) == names, "python: \(python.stderr)")
    }

    @Test("an archive to stdout is all stdout carries (the report, --json too, goes to stderr); a reader that goes away ends it quietly")
    func exportToStdout() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        for command in [["visits", "list"], ["library", "albums"], ["library", "prefetch", "--rows", "2", "--columns", "3"]] {
            #expect(try brados(command, server).status == 0, "\(command)")
        }
        let environment = BuiltProducts.quiet(["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
                                               "PATH": "/usr/bin:/bin"])
        let brados = BuiltProducts.url("brados").path
        let archive = home.url.appendingPathComponent("piped.tar.zst")
        let piped = try BuiltProducts.run(executable: URL(fileURLWithPath: "/bin/sh"),
                                          ["-c", #""$0" cache export -o - --json > "$1""#, brados, archive.path], environment: environment)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stderr.contains(#""archive" : "-""#) && piped.stderr.contains(#""report""#), "\(piped.stderr)")
        let verify = try self.brados(["cache", "verify", archive.path], server)
        #expect(verify.status == 0 && verify.stdout.contains("OK:"), "\(verify.stderr)")
        // `| head -c 300`: brados ends by SIGPIPE (141 to the shell), saying nothing, leaving nothing behind.
        let head = try BuiltProducts.run(executable: URL(fileURLWithPath: "/bin/bash"),
                                         ["-c", #""$0" cache export -o - | head -c 300 > /dev/null; echo "${PIPESTATUS[0]}""#, brados], environment: environment)
        #expect(head.stdout == "141\n" && head.stderr.isEmpty, "\(head.stdout) \(head.stderr)")
        let staging = home.url.appendingPathComponent("cache/users/default/.staging")
        #expect(!FileManager.default.fileExists(atPath: staging.path), "\((try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? [])")
    }

    @Test("a new machine: --with-settings brings the settings (what it sets already stays); every import says what it did not bring")
    func settingsTravel() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["visits", "list"], server).status == 0)
        for (key, value) in [("visits.ttl", "42m"), ("library.prefetch", "false"), ("archive.max-ratio", "500")] {
            #expect(try brados(["config", "set", key, value], server).status == 0, "\(key)")
        }
        let archive = home.url.appendingPathComponent("with-settings.tar.zst")
        let plain = home.url.appendingPathComponent("without-settings.tar.zst")
        #expect(try brados(["cache", "export", "--with-settings", "-o", archive.path], server).status == 0)
        #expect(try brados(["cache", "export", "-o", plain.path], server).status == 0)
        // The new machine: another home, which sets one of the three itself.
        let laptop = TemporaryDirectory("e2e-archive-laptop")
        func there(_ arguments: [String]) throws -> BuiltProducts.Result {
            try BuiltProducts.run("brados", arguments, environment: ["BRADOS_HOME": laptop.url.path, "HOME": laptop.url.path,
                                                                     "BRADOS_SERVER": server.url.absoluteString])
        }
        #expect(try there(["config", "set", "archive.max-ratio", "300"]).status == 0)
        let imported = try there(["cache", "import", archive.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("Settings set from the archive: library.prefetch, visits.ttl."), "\(imported.stdout)")
        #expect(imported.stderr.contains("kept this machine's archive.max-ratio"), "\(imported.stderr)")
        #expect(imported.stderr.contains("Not in the archive: the sign-in") && imported.stderr.contains("archive key"), "\(imported.stderr)")
        #expect(try there(["config", "get", "visits.ttl"]).stdout == "42m\n")
        #expect(try there(["config", "get", "archive.max-ratio"]).stdout == "300\n")
        // Without --with-settings the import says they stayed behind, in --json too.
        let other = try there(["cache", "import", plain.path, "--as", "second", "--json"])
        #expect(other.status == 0, "\(other.stderr)")
        let document = try json(other)
        #expect(document.keys.contains("settingsImport") && document["settingsImport"] is NSNull)
        #expect((document["notBrought"] as? [String])?.contains { $0.contains("--with-settings") } == true, "\(other.stdout)")
        #expect(document["domains"] != nil, "the report's keys stay where they were")
    }

    @Test("--merge rolls nothing back: kept plans a union; the newer plan, meal plan, visits and album list stay; conversations by row, deletions kept; the dry run says so per domain")
    func mergeKeepsNewer() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        for command in [["plan"], ["mealplan", "show"], ["visits", "list"], ["coach", "conversations"], ["library", "albums"],
                        ["library", "prefetch", "--rows", "1", "--columns", "2"]] {
            #expect(try brados(command, server).status == 0, "\(command)")
        }
        func images(_ profile: String = "default") throws -> Int {
            let domains = try json(try brados(["--profile", profile, "cache", "stats", "--json"], server))["domains"] as? [[String: Any]] ?? []
            return domains.first { $0["domain"] as? String == "library" }?["entries"] as? Int ?? 0
        }
        func conversations() throws -> [String] {
            (try json(try brados(["--offline", "coach", "conversations", "--json"], server))["conversations"] as? [[String: Any]] ?? [])
                .map { "\($0["id"] ?? "") \($0["title"] ?? "")" }
        }
        func albums() throws -> [String] {
            (try json(try brados(["--offline", "library", "albums", "--json"], server))["albums"] as? [[String: Any]] ?? [])
                .map { "\($0["ratingKey"] ?? "") \($0["title"] ?? "")" }
        }
        let older = home.url.appendingPathComponent("older.tar.zst")
        #expect(try brados(["cache", "export", "-o", older.path], server).status == 0)
        let olderConversations = try conversations(), olderAlbums = try albums()
        #expect(olderConversations.count >= 3 && olderAlbums.count >= 1)
        // After the export: two new plans, and a visit.
        for weight in ["84", "82"] { #expect(try brados(["plan", "weight", weight], server).status == 0, "\(weight)") }
        #expect(try brados(["visits", "add", "--place", "Added after the export"], server).status == 0)
        #expect(try brados(["visits", "list"], server).status == 0)
        // A conversation renamed and one added on the server, one deleted here; an album renamed.
        let later = Date().timeIntervalSince1970 + 5
        let renamed = String(try #require(olderConversations.first?.split(separator: " ").first))
        let deleted = String(try #require(olderConversations.last?.split(separator: " ").first))
        let user = try #require(try await server.sql("SELECT user_id FROM conversations WHERE id = ?", [renamed]).first?.first as? String)
        try await server.sql("UPDATE conversations SET title = 'Renamed after the export', updated_at = ? WHERE id = ?", ["\(later)", renamed])
        try await server.sql("""
            INSERT INTO conversations (id, user_id, title, domain, last_message_at, message_count, created_at, updated_at)
            VALUES ('00000000-0000-4000-8000-000000000054', ?, 'Started after the export', 'general', NULL, 0, ?, ?)
            """, [user, "\(later)", "\(later)"])
        #expect(try brados(["coach", "delete", deleted, "--yes"], server).status == 0)
        #expect(try brados(["coach", "conversations"], server, waitForServer: true).status == 0)
        let album = String(try #require(olderAlbums.first?.split(separator: " ").first))
        _ = try await server.request("POST", "/_admin/plex", headers: [("Content-Type", "application/json")],
                                     body: try JSONSerialization.data(withJSONObject: ["at": Int(later), "retitle": [album: "Retitled after the export"]]))
        #expect(try brados(["library", "albums", "--refresh"], server).status == 0)
        let olderImages = try images()
        #expect(try brados(["library", "prefetch", "--rows", "2", "--columns", "3"], server).status == 0)
        let newerImages = try images()
        #expect(newerImages > olderImages, "\(olderImages) then \(newerImages)")
        let newerConversations = try conversations(), newerAlbums = try albums()
        #expect(newerConversations.contains("\(renamed) Renamed after the export") && !newerConversations.contains { $0.hasPrefix(deleted) }
                && newerConversations.contains { $0.contains("Started after the export") }, "\(newerConversations)")
        #expect(newerAlbums.contains("\(album) Retitled after the export"), "\(newerAlbums)")
        func plans() throws -> [Int] { (try json(try brados(["plan", "history", "--plans", "--json"], server))["plans"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int } }
        func current() throws -> String { try brados(["--offline", "plan", "--json"], server).stdout.components(separatedBy: "\"source\"")[0] }
        let keptBefore = try plans()
        #expect(keptBefore.count >= 3, "\(keptBefore)")
        let planBefore = try current()
        let mealBefore = try brados(["--offline", "mealplan", "show", "--json"], server).stdout.components(separatedBy: "\"source\"")[0]

        let dry = try brados(["cache", "import", older.path, "--merge", "--dry-run"], server)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("plan: keeps this profile's plan") && dry.stdout.contains("visits: keeps this profile's")
                && dry.stdout.contains("mealplan: keeps this profile's meal plan"), "\(dry.stdout)")
        #expect(dry.stdout.contains("coach: keeps this profile's 1 conversation the archive lacks, 1 conversation updated here later")
                && dry.stdout.contains("leaves out the archive's 1 conversation deleted here"), "\(dry.stdout)")
        #expect(dry.stdout.contains("library: keeps this profile's") && dry.stdout.contains("not older than the archive's"), "\(dry.stdout)")
        #expect(try plans() == keptBefore, "a dry run changes nothing")

        let merged = try brados(["cache", "import", older.path, "--merge"], server)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try plans() == keptBefore, "every kept plan stays, with its id")
        #expect(try current() == planBefore, "the newer plan stays")
        #expect(try brados(["--offline", "mealplan", "show", "--json"], server).stdout.components(separatedBy: "\"source\"")[0] == mealBefore)
        #expect(try brados(["--offline", "visits", "list"], server).stdout.contains("Added after the export"))
        #expect(try conversations() == newerConversations, "the renamed and added conversations stay; the deleted one stays deleted")
        #expect(try albums() == newerAlbums, "the newer album list stays whole")
        #expect(try images() == newerImages, "artwork fetched after the export stays cached")

        // The other way: a profile holding the older copy merges the newer archive, and the
        // deletion made here travels with it.
        let newer = home.url.appendingPathComponent("newer.tar.zst")
        #expect(try brados(["cache", "export", "-o", newer.path], server).status == 0)
        #expect(try brados(["cache", "import", older.path, "--as", "laptop"], server).status == 0)
        let intoOlder = try brados(["--profile", "laptop", "cache", "import", newer.path, "--merge"], server)
        #expect(intoOlder.status == 0, "\(intoOlder.stderr)")
        let laptop = (try json(try brados(["--profile", "laptop", "--offline", "coach", "conversations", "--json"], server))["conversations"] as? [[String: Any]] ?? [])
            .map { "\($0["id"] ?? "") \($0["title"] ?? "")" }
        #expect(Set(laptop) == Set(newerConversations), "\(laptop)\n\(intoOlder.stdout)")
        let laptopAlbums = try brados(["--profile", "laptop", "--offline", "library", "albums"], server)
        #expect(laptopAlbums.stdout.contains("Retitled after the export"), "\(laptopAlbums.stdout)")
        #expect(try images("laptop") == newerImages)
    }

    @Test("a missing archive is named as missing, with advice about its path, exit 3")
    func missingArchive() async throws {
        let server = try ServerProcess()
        let missing = home.url.appendingPathComponent("nope.tar.zst").path
        for command in [["cache", "verify", missing], ["cache", "import", missing]] {
            let result = try brados(command, server)
            #expect(result.status == 3, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("There is no file \(missing).") && result.stderr.contains("Check the archive's path"), "\(result.stderr)")
            #expect(!result.stderr.contains("config path"), "\(result.stderr)")
        }
    }

    @Test("a refused import --as a new profile leaves no trace of that profile (no folder, no stray lock file in it)")
    func refusedImportLeavesNoProfile() async throws {
        let server = try ServerProcess()
        let garbage = home.url.appendingPathComponent("garbage.tar.zst")
        try Data("not an archive".utf8).write(to: garbage)
        let result = try brados(["cache", "import", garbage.path, "--as", "ghost"], server)
        #expect(result.status == 8, "\(result.stderr)")
        for root in ["cache", "data"] {
            let folder = home.url.appendingPathComponent("\(root)/users/ghost")
            #expect(!FileManager.default.fileExists(atPath: folder.path), "\(folder.path): \((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])")
        }
        // Nor its lock file, which lives outside the profile's folders.
        let lock = home.url.appendingPathComponent("data/locks/ghost.lock")
        #expect(!FileManager.default.fileExists(atPath: lock.path), "\(lock.path) was left")
    }
}
