import Foundation
import Testing
import TestSupport

/// The library domain end to end: the built `brados` against `brados-server`'s Plex routes.
@Suite("End to end: library", .serialized, .ownThread)
struct LibraryEndToEndTests {
    let home = TemporaryDirectory("e2e-library")

    func brados(_ arguments: [String], _ server: ServerProcess, extra: [String: String] = [:], stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ].merging(extra) { $1 }, stdin: stdin)
    }

    /// The 1024 px images in the artwork cache.
    func listCovers() -> Int {
        let folder = home.url.appendingPathComponent("cache/users/default/library/artwork/1024")
        return (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).filter { !$0.hasPrefix(".") && $0.count > 3 }.count
    }

    func json(_ result: BuiltProducts.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test("albums: live with paging, then from the snapshot; offline from the snapshot")
    func albums() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let first = try brados(["library", "albums"], server)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("from the network"))
        #expect(try await server.stats().byRoute["GET /library/sections/{section}/all"] ?? 0 >= 3, "several pages")
        let offline = try json(try brados(["library", "albums", "--json", "--offline"], server))
        #expect((offline["source"] as? [String: Any])?["kind"] as? String == "cache")
        let albums = offline["albums"] as? [[String: Any]] ?? []
        #expect(albums.count > 250)
        let identities = albums.map { "\($0["title"] ?? "")|\($0["artist"] ?? "")|\($0["year"] ?? "")" }
        #expect(Set(identities).count == identities.count, "duplicates are dropped")
    }

    @Test("several sections: the first music one by default; --section by key or title; library.section for every command; a movie section or an unknown one is a clear error")
    func sections() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let listed = try brados(["library", "sections"], server)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("Live Recordings") && listed.stdout.contains("movie"), "\(listed.stdout)")
        func count(_ result: BuiltProducts.Result) throws -> (Int, String?) {
            #expect(result.status == 0, "\(result.stderr)")
            let object = try json(result)
            return ((object["albums"] as? [Any])?.count ?? -1, object["section"] as? String)
        }
        let (all, first) = try count(try brados(["library", "albums", "--refresh", "--json"], server))
        #expect(first == "1")
        let (live, second) = try count(try brados(["library", "albums", "--section", "live recordings", "--refresh", "--json"], server))
        #expect(second == "2")
        #expect(live > 0 && live < all, "\(live) of \(all)")
        #expect(try count(try brados(["library", "albums", "--section", "2", "--json", "--offline"], server)) == (live, "2"), "the snapshot of that section")

        #expect(try brados(["config", "set", "library.section", "Live Recordings"], server).status == 0)
        #expect(try count(try brados(["library", "albums", "--refresh", "--json"], server)) == (live, "2"))
        let used = try #require(try JSONSerialization.jsonObject(with: Data(try brados(["library", "sections", "--json"], server).stdout.utf8)) as? [[String: Any]])
        #expect(used.filter { $0["used"] as? Bool == true }.map { $0["key"] as? String } == ["2"])
        #expect(try count(try brados(["library", "albums", "--section", "Music", "--refresh", "--json"], server)).1 == "1", "--section wins over the setting")

        let movies = try brados(["library", "albums", "--section", "Movies", "--refresh"], server)
        #expect(movies.status == 64, "\(movies.stderr)")
        #expect(movies.stderr.contains("holds movies, not music"), "\(movies.stderr)")
        #expect(movies.stderr.contains("1 (Music), 2 (Live Recordings)"))
        let unknown = try brados(["library", "albums", "--section", "Podcasts", "--refresh"], server)
        #expect(unknown.status == 3, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("no library section 'Podcasts'"), "\(unknown.stderr)")
    }

    @Test("show caches the 2048 px artwork; artwork prints the 1024 px file; prefetch fetches only the first screen at 1024 px")
    func artwork() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let albums = try json(try brados(["library", "albums", "--json"], server))["albums"] as? [[String: Any]] ?? []
        let key = try #require(albums.first(where: { $0["thumb"] is String })?["ratingKey"] as? String)
        // Every date in --json is ISO 8601, the library's `addedAt` too (Plex's Unix seconds are not passed on).
        let added = try #require(albums.first?["addedAt"] as? String)
        #expect(added.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$"#, options: .regularExpression) != nil, "\(added)")

        let show = try json(try brados(["library", "show", key, "--json"], server))
        let shown = (show["album"] as? [String: Any])?["album"] as? [String: Any]
        #expect((shown?["addedAt"] as? String)?.hasPrefix("20") == true, "an ISO 8601 date, not a number: \(shown ?? [:])")
        let large = try #require(show["artwork"] as? String)
        #expect(large.contains("/library/artwork/2048/"))
        let largeData = try Data(contentsOf: URL(fileURLWithPath: large))
        #expect(largeData.starts(with: [0xFF, 0xD8, 0xFF]), "Plex transcodes to JPEG: kept as sent")
        #expect(largeData.count > 300_000)

        let path = try brados(["library", "artwork", key, "--size", "1024"], server)
        #expect(path.status == 0)
        #expect(FileManager.default.fileExists(atPath: path.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))

        // -o gives the file the extension of what it is.
        let out = home.url.appendingPathComponent("out", isDirectory: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let renamed = try brados(["library", "artwork", key, "-o", out.appendingPathComponent("cover.png").path], server)
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(renamed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == out.appendingPathComponent("cover.jpg").path)
        #expect(renamed.stderr.contains("the image is a JPEG: writing"), "\(renamed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("cover.png").path))
        #expect(try Data(contentsOf: out.appendingPathComponent("cover.jpg")).starts(with: [0xFF, 0xD8, 0xFF]))
        // The renamed file exists now: it is not replaced unless named.
        let again = try brados(["library", "artwork", key, "-o", out.appendingPathComponent("cover.png").path], server)
        #expect(again.status == 64, "\(again.stderr)")
        #expect(again.stderr.contains("already exists") && again.stderr.contains("-o \(out.appendingPathComponent("cover.jpg").path)"), "\(again.stderr)")
        #expect(try brados(["library", "artwork", key, "-o", out.appendingPathComponent("cover.jpg").path], server).status == 0)
        let bare = try json(try brados(["library", "artwork", key, "-o", out.appendingPathComponent("bare").path, "--json"], server))
        #expect(bare["path"] as? String == out.appendingPathComponent("bare.jpg").path)
        #expect(bare["format"] as? String == "jpeg")
        let inFolder = try brados(["library", "artwork", key, "-o", out.path], server)
        #expect(inFolder.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == out.appendingPathComponent("\(key).jpg").path)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("\(key).jpg").path))

        try await server.resetStats()
        let prefetch = try json(try brados(["library", "prefetch", "--rows", "4", "--json"], server))
        #expect((prefetch["requested"] as? Int ?? 0) + (prefetch["skippedWithoutArtwork"] as? Int ?? 0) == 5)
        let transcodes = try await server.stats().byRoute["GET /photo/{colon}/transcode"] ?? 0
        let fetched = prefetch["fetched"] as? Int ?? 0
        #expect(fetched >= 3, "prefetch fetched the first screen's artwork")
        #expect(transcodes == fetched, "one transcode request per fetched image, nothing beyond the first screen")

        let stats = try json(try brados(["library", "cache", "stats", "--json"], server))
        let artwork = try #require(stats["artwork"] as? [String: Any])
        #expect((artwork["bytes"] as? Int ?? 0) <= 250_000_000)
        #expect((artwork["buckets"] as? [[String: Any]])?.count == 2)

        let prune = try brados(["library", "cache", "prune", "--max-size", "0"], server)
        #expect(prune.status == 0)
        let after = try json(try brados(["library", "cache", "stats", "--json"], server))
        #expect((after["artwork"] as? [String: Any])?["bytes"] as? Int == 0)
    }

    @Test("4 brados processes prefetching at once under a 2 MB cap: cap held, index consistent with the files")
    func concurrentProcesses() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["config", "set", "library.artwork-cap", "2MB"], server).status == 0)
        #expect(try brados(["library", "albums", "--json"], server).status == 0)
        let environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString]
        let results = try await withThrowingTaskGroup(of: BuiltProducts.Result.self) { group in
            for rows in [10, 14, 18, 22] {
                group.addTask { try BuiltProducts.run("brados", ["library", "prefetch", "--rows", "\(rows)", "--json"], environment: environment) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let stats = try json(try brados(["library", "cache", "stats", "--json"], server))
        let artwork = try #require(stats["artwork"] as? [String: Any])
        let bytes = artwork["bytes"] as? Int ?? -1
        #expect(bytes > 0)
        #expect(bytes <= 2_000_000)
        let folder = home.url.appendingPathComponent("cache/users/default/library/artwork")
        var files = 0, total = 0
        for bucket in ["1024", "2048"] {
            let enumerator = FileManager.default.enumerator(at: folder.appendingPathComponent(bucket), includingPropertiesForKeys: [.fileSizeKey])
            while let url = enumerator?.nextObject() as? URL {
                guard !url.lastPathComponent.hasPrefix("."), (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
                files += 1
                total += try url.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0
            }
        }
        #expect(files == artwork["entries"] as? Int)
        #expect(total == bytes)
    }

    @Test("a load from the network prefetches the first screen's covers in the background; never offline, never with library.prefetch off, never twice at once")
    func backgroundPrefetch() async throws {
        let server = try ServerProcess()
        let on = ["BRADOS_LIBRARY_PREFETCH": "true"]
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        // Off: the load fetches no image.
        #expect(try brados(["library", "albums", "--limit", "3"], server).status == 0)
        #expect(await eventually { !BuiltProducts.isRunning(home: home.url) })
        #expect(listCovers() == 0)
        #expect(try await server.stats().byRoute["GET /photo/{colon}/transcode"] == nil)
        // Offline: nothing starts, whatever the setting.
        #expect(try brados(["library", "albums", "--limit", "3", "--offline"], server, extra: on).status == 0)
        #expect(await eventually { !BuiltProducts.isRunning(home: home.url) })
        #expect(listCovers() == 0)

        // Another prefetch holds the lock: the background one leaves it be.
        let lockURL = home.url.appendingPathComponent("cache/users/default/library/prefetch.lock")
        try FileManager.default.createDirectory(at: lockURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let lock = open(lockURL.path, O_CREAT | O_RDWR, 0o600)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
        let loaded = try brados(["library", "albums", "--limit", "3", "--refresh"], server, extra: on)
        #expect(loaded.status == 0 && loaded.stdout.contains("albums 1–3"), "\(loaded.stderr)")
        #expect(await eventually { !BuiltProducts.isRunning(home: home.url) })
        #expect(listCovers() == 0)
        close(lock)

        // On (the default): the command returns at once, the first screen's covers (24 rows) arrive after.
        let started = ContinuousClock.now
        #expect(try brados(["library", "albums", "--limit", "3", "--refresh"], server, extra: on).status == 0)
        let returned = ContinuousClock.now - started
        #expect(await eventually { !BuiltProducts.isRunning(home: home.url) })
        let withArt = try json(try brados(["library", "albums", "--json", "--offline", "--limit", "22"], server))["albums"] as? [[String: Any]] ?? []
        #expect(listCovers() == withArt.filter { $0["thumb"] is String }.count, "\(listCovers()) covers for the first 22 albums")
        #expect(returned < .seconds(5), "\(returned)")
        // Everything cached: the next load starts nothing.
        try await server.resetStats()
        #expect(try brados(["library", "albums", "--limit", "3", "--refresh"], server, extra: on).status == 0)
        #expect(await eventually { !BuiltProducts.isRunning(home: home.url) })
        #expect(try await server.stats().byRoute["GET /photo/{colon}/transcode"] == nil)
    }

    @Test("library collections loaded from the network prefetches the first screen's collection covers in the background, as albums do")
    func collectionsPrefetch() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        try await server.resetStats()
        #expect(try brados(["library", "collections"], server, extra: ["BRADOS_LIBRARY_PREFETCH": "true"]).status == 0)
        #expect(await eventually { !BuiltProducts.isRunning(home: home.url) })
        let collections = try json(try brados(["library", "collections", "--json", "--offline"], server))["collections"] as? [[String: Any]] ?? []
        // No terminal: 24 rows, 21 of them a screen's entries.
        let wanted = collections.prefix(21).filter { $0["thumb"] is String }.count
        #expect(wanted > 0)
        #expect(try await server.stats().byRoute["GET /photo/{colon}/transcode"] == wanted, "the first screen's \(wanted) collection covers")
    }

    @Test("collections have covers: --covers draws them, show KEY shows a collection with its 2048 px cover")
    func collectionCovers() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let collections = try json(try brados(["library", "collections", "--json"], server))["collections"] as? [[String: Any]] ?? []
        let first = try #require(collections.first)
        let key = try #require(first["ratingKey"] as? String)
        #expect((first["thumb"] as? String)?.contains("/composite/") == true)

        let show = try json(try brados(["library", "show", key, "--json"], server))
        #expect((show["collection"] as? [String: Any])?["title"] as? String == first["title"] as? String)
        let large = try #require(show["artwork"] as? String)
        #expect(large.contains("/library/artwork/2048/"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: large)).starts(with: [0xFF, 0xD8, 0xFF]))
        let text = try brados(["library", "show", key], server)
        #expect(text.status == 0 && text.stdout.contains("collection") && text.stdout.contains("library collections \(key)"), "\(text.stdout)")

        // The grid on a terminal: every collection's cover fetched at 1024 px, titles under them.
        try await server.resetStats()
        let terminal = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "PATH": "/usr/bin:/bin"]
        let screen = try FakeTerminal.run([BuiltProducts.url("brados").path, "library", "collections", "--covers", "--art", "symbols"],
                                          environment: terminal)
        #expect(screen.status == 0, "\(screen.stdout.suffix(500))")
        #expect(screen.stdout.contains("collections 1–") && screen.stdout.contains(first["title"] as? String ?? "?"))
        let transcodes = try await server.stats().byRoute["GET /photo/{colon}/transcode"] ?? 0
        #expect(transcodes >= 5, "\(transcodes) covers fetched")
        // Offline, the grid draws from the cache.
        let offline = try FakeTerminal.run([BuiltProducts.url("brados").path, "library", "collections", "--covers", "--art", "symbols", "--offline"],
                                           environment: terminal)
        #expect(offline.status == 0 && offline.stdout.contains("from cache"), "\(offline.stdout.suffix(500))")
    }

    @Test("covers the server has none of (404) are asked for once: the next prefetch of the same screen asks nothing")
    func missingCoversRemembered() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["library", "albums", "--json"], server, extra: ["BRADOS_LIBRARY_PREFETCH": "false"]).status == 0)
        try await server.addFault(#"{"match":"GET /photo","status":404}"#)
        try await server.resetStats()
        let first = try json(try brados(["library", "prefetch", "--rows", "4", "--json"], server))
        let asked = try await server.stats().byRoute["GET /photo/{colon}/transcode"] ?? 0
        #expect(asked > 0 && asked == first["requested"] as? Int, "\(first)")
        #expect(first["failed"] as? Int == 0, "a missing cover is the placeholder, not a failure: \(first)")
        try await server.resetStats()
        let second = try brados(["library", "prefetch", "--rows", "4", "--json"], server)
        #expect(second.status == 0, "\(second.stderr)")
        let remembered = (try? String(contentsOf: home.url.appendingPathComponent("cache/users/default/library/artwork/missing.json"), encoding: .utf8)) ?? "none"
        #expect(try await server.stats().byRoute["GET /photo/{colon}/transcode"] == nil, "first: \(first); second: \(second.stdout); remembered: \(remembered)")
        try await server.clearFaults()
    }

    @Test("a load shows its progress on a terminal (a bar with the albums read so far) and none in a pipe")
    func loadProgress() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        // Slow pages, so the progress line is drawn more than once.
        try await server.addFault(#"{"match":"GET /library/sections/1/all","latencyMs":400}"#)
        let piped = try brados(["library", "albums", "--limit", "2"], server)
        #expect(piped.status == 0 && !piped.stderr.contains("fetching albums") && !piped.stderr.contains("⠋"), "\(piped.stderr)")
        let screen = try FakeTerminal.run(
            [BuiltProducts.url("brados").path, "library", "albums", "--limit", "2", "--refresh", "--full", "--no-pager"],
            options: ["--answers", "silent", "--stderr"],
            environment: ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "PATH": "/usr/bin:/bin"])
        #expect(screen.status == 0)
        #expect(screen.stdout.contains("fetching albums (--refresh)…"), "\(screen.stdout.suffix(800))")
        // A bar with the count read of the section's total (312 with the duplicates the listing sets aside).
        #expect(screen.stdout.contains("█") && screen.stdout.contains("100/312"), "\(screen.stdout.suffix(800))")
        #expect(screen.stdout.contains("albums 1–2 of 304"))
    }
}
