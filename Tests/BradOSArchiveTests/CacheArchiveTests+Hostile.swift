import ArgumentParser
@testable import BradOSArchive
@testable import BradOSCore
import BradOSStorage
import BradOSTerminal
import Crypto
import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

// Hostile archives and databases: refused, with nothing written outside staging.
extension CacheArchiveTests {
    // MARK: - Hostile archives

    enum Entry {
        case file(String, Data)
        case symlink(String, target: String)
        case hardlink(String, target: String)
        case device(String)
        case fifo(String)
    }

    /// An archive with a manifest listing `listed` files (path → content) and the given entries.
    func hostile(listed: [(String, Data)], entries: [Entry], tamper: (inout CacheArchiveManifest) -> Void = { _ in },
                 compression: ArchiveCompression = .zstd) throws -> URL {
        var manifest = CacheArchiveManifest(
            format: CacheArchiveManifest.formatName, formatVersion: 1, bradosVersion: "test", profile: "mallory", accounts: [:],
            createdAt: Date(), compression: compression.rawValue,
            domains: [.init(name: "alpha", dataVersion: 1, files: listed.count, bytes: listed.reduce(0) { $0 + Int64($1.1.count) })],
            files: listed.map { .init(path: $0.0, domain: "alpha", size: Int64($0.1.count), sha256: Hex.encode(SHA256.hash(data: $0.1)), mode: 0o600, kind: "file") })
        tamper(&manifest)
        let url = root.url.appendingPathComponent("hostile-\(UUID().uuidString).tar.zst")
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        let writer = try ArchiveWriter(fd: fd, compression: compression, level: nil, rawNames: true)
        try writer.addFile(path: CacheArchiveManifest.fileName, data: try JSONCoding.encode(manifest), modified: Date())
        for entry in entries {
            switch entry {
            case let .file(path, data): try writer.addFile(path: path, data: data, modified: Date())
            case let .symlink(path, target): try writer.addSpecialEntry(path: path, type: ArchiveWriter.symlinkType, symlink: target)
            case let .hardlink(path, target): try writer.addSpecialEntry(path: path, type: ArchiveWriter.regularType, hardlink: target)
            case let .device(path): try writer.addSpecialEntry(path: path, type: ArchiveWriter.characterDeviceType)
            case let .fifo(path): try writer.addSpecialEntry(path: path, type: ArchiveWriter.fifoType)
            }
        }
        try writer.finish()
        return url
    }

    /// Imports a hostile archive over a filled profile and checks: the expected refusal,
    /// nothing written outside staging, the prior cache intact, staging cleaned.
    func expectRefused(_ archive: URL, limits: ArchiveLimits = ArchiveLimits(), accounts: [String: String] = [:],
                       _ matches: (ArchiveError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let target = profile("victim")
        if FileSystem.regularFiles(under: target.dataDirectory).isEmpty { try fill(target, seed: 9) }
        let before = try snapshot(target)
        let outside = root.url.appendingPathComponent("outside")
        try FileSystem.createDirectory(outside)
        do {
            _ = try importArchive(archive, into: target, options: .init(mode: .replace, limits: limits), accounts: accounts)
            Issue.record("the archive was imported", sourceLocation: sourceLocation)
        } catch let error as ArchiveError {
            #expect(matches(error), "unexpected \(error)", sourceLocation: sourceLocation)
            #expect(error.kind == .integrity || error.kind == .refused || error.kind == .general, sourceLocation: sourceLocation)
        }
        #expect(try snapshot(target) == before, sourceLocation: sourceLocation)
        #expect(FileSystem.regularFiles(under: outside).isEmpty, sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: root.url.appendingPathComponent("evil").path), sourceLocation: sourceLocation)
        #expect(try entries(under: outside).isEmpty, sourceLocation: sourceLocation)
        #expect(try entries(under: paths.cacheRoot.appendingPathComponent(".staging")).isEmpty, sourceLocation: sourceLocation)
        #expect(try entries(under: paths.dataRoot.appendingPathComponent(".staging")).isEmpty, sourceLocation: sourceLocation)
        #expect(try entries(under: root.url.appendingPathComponent("config")).isEmpty, sourceLocation: sourceLocation)
    }

    @Test("hostile archives are refused, nothing is written outside staging, and the prior cache is intact")
    func hostileCorpus() throws {
        let good = Data("ok".utf8)
        let evil = Data("evil".utf8)
        let okFile = ("cache/alpha/ok", good)
        // Path traversal and absolute paths, listed in the manifest or not.
        try expectRefused(try hostile(listed: [("cache/alpha/../../../../evil", evil)], entries: [.file("cache/alpha/../../../../evil", evil)])) {
            if case .unsafeEntry = $0 { true } else { false }
        }
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good), .file("../evil", evil)])) {
            if case .unsafeEntry = $0 { true } else { false }
        }
        try expectRefused(try hostile(listed: [okFile], entries: [.file("/tmp/evil", evil)])) { if case .unsafeEntry = $0 { true } else { false } }
        // A '/' inside a grapheme cluster: one Swift Character, but a separator to the kernel.
        let sneaky = "cache/alpha/A\u{600}/../../../../../config/evil"
        try expectRefused(try hostile(listed: [(sneaky, evil)], entries: [.file(sneaky, evil)])) { if case .unsafeEntry = $0 { true } else { false } }
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good), .file(sneaky, evil)])) {
            if case .unsafeEntry = $0 { true } else { false }
        }
        // A domain listed twice, or counts that do not match the files.
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good)], tamper: { $0.domains += $0.domains })) {
            if case .invalidManifest = $0 { true } else { false }
        }
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good)], tamper: { $0.domains[0].files = 5 })) {
            if case .invalidManifest = $0 { true } else { false }
        }
        // Links, devices, FIFOs.
        try expectRefused(try hostile(listed: [okFile], entries: [.symlink("cache/alpha/link", target: "/etc/passwd")])) {
            if case .unsafeEntry(_, let reason) = $0 { reason.contains("symbolic") } else { false }
        }
        try expectRefused(try hostile(listed: [("cache/alpha/link/evil", evil)],
                                      entries: [.symlink("cache/alpha/link", target: root.url.appendingPathComponent("outside").path),
                                                .file("cache/alpha/link/evil", evil)])) {
            if case .unsafeEntry = $0 { true } else { false }
        }
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good), .hardlink("cache/alpha/hard", target: "cache/alpha/ok")])) {
            if case .unsafeEntry(_, let reason) = $0 { reason.contains("hard link") } else { false }
        }
        try expectRefused(try hostile(listed: [okFile], entries: [.device("cache/alpha/dev")])) {
            if case .unsafeEntry(_, let reason) = $0 { reason.contains("device") } else { false }
        }
        try expectRefused(try hostile(listed: [okFile], entries: [.fifo("cache/alpha/fifo")])) {
            if case .unsafeEntry(_, let reason) = $0 { reason.contains("FIFO") } else { false }
        }
        // Duplicates, unlisted and missing entries, a tampered checksum or size.
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good), .file("cache/alpha/ok", good)])) {
            $0 == .duplicateEntry(path: "cache/alpha/ok")
        }
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good), .file("cache/alpha/extra", evil)])) {
            $0 == .unlistedEntry(path: "cache/alpha/extra")
        }
        try expectRefused(try hostile(listed: [okFile, ("cache/alpha/gone", good)], entries: [.file("cache/alpha/ok", good)])) {
            $0 == .missingEntry(path: "cache/alpha/gone")
        }
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", Data("ko".utf8))])) {
            $0 == .checksumMismatch(path: "cache/alpha/ok")
        }
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", Data("okay".utf8))])) {
            if case .sizeMismatch = $0 { true } else { false }
        }
        // A manifest that is not ours, or no manifest first.
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good)], tamper: { $0.format = "something-else" })) {
            if case .notBradosArchive = $0 { true } else { false }
        }
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good)], tamper: { $0.formatVersion = 99 })) {
            if case .otherVersion("format", 99, CacheArchiveManifest.currentFormatVersion, _) = $0 { true } else { false }
        }
        // A newer brados's archive says so, whether its format or a domain's data is newer, or its manifest has new fields.
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good)], tamper: { $0.domains[0].dataVersion = 2; $0.bradosVersion = "9.0.0" })) {
            $0 == .otherVersion(what: "alpha", archive: 2, reads: 1, madeBy: "9.0.0") && $0.summary.contains("made by a newer brados (9.0.0)")
                && $0.recovery?.contains("Upgrade brados") == true
        }
        let newer = try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good)], tamper: { $0.formatVersion = 2; $0.bradosVersion = "9.0.0" })
        let verifier = CacheVerifier(dataVersions: ["alpha": 1...1])
        for (archive, expected) in [(newer, ArchiveError.otherVersion(what: "format", archive: 2, reads: 1, madeBy: "9.0.0"))] {
            let fd = open(archive.path, O_RDONLY)
            defer { close(fd) }
            #expect(throws: expected) { try verifier.verify(fd: fd) }
        }
        let newerData = try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good)], tamper: { $0.domains[0].dataVersion = 3 })
        let fd = open(newerData.path, O_RDONLY)
        defer { close(fd) }
        #expect(throws: ArchiveError.otherVersion(what: "alpha", archive: 3, reads: 1, madeBy: "test")) { try verifier.verify(fd: fd) }
        // A manifest that does not decode here (a newer brados's new required shape) is named by its format version.
        #expect(CacheArchiveManifest.newerFormat(Data(#"{"formatVersion": 7, "bradosVersion": "12.1", "files": "new"}"#.utf8))
                == .otherVersion(what: "format", archive: 7, reads: 1, madeBy: "12.1"))
        #expect(CacheArchiveManifest.newerFormat(Data(#"{"formatVersion": 1}"#.utf8)) == nil)
        // A foreign account.
        try expectRefused(try hostile(listed: [okFile], entries: [.file("cache/alpha/ok", good)], tamper: { $0.accounts = ["api": "mallory"] }),
                          accounts: ["api": "victim"]) {
            $0 == .foreignAccount(service: "api", archive: "mallory", profile: "victim", target: "victim")
        }
        // A database that is not sound is refused before the swap.
        let garbage = Data(repeating: 0x5A, count: 8192)
        try expectRefused(try hostile(listed: [("data/alpha/store.sqlite", garbage)], entries: [.file("data/alpha/store.sqlite", garbage)])) {
            if case .unsafeEntry(_, let reason) = $0 { reason.contains("SQLite") } else { false }
        }
    }

    @Test("a truncated archive is refused with nothing changed")
    func truncated() throws {
        let source = profile("default")
        try fill(source)
        let archive = try export(source)
        let data = try Data(contentsOf: archive)
        let cut = root.url.appendingPathComponent("cut.tar.zst")
        try data.prefix(data.count / 2).write(to: cut)
        try expectRefused(cut) { error in
            switch error {
            case .truncated, .notAnArchive: true
            default: false
            }
        }
    }

    @Test("data damaged in the first compressed block is refused, not a crash (a double free in ArchiveReader)",
          arguments: [ArchiveCompression.gzip, .zstd])
    func damagedFirstBlock(compression: ArchiveCompression) throws {
        let archive = try hostile(listed: [("cache/alpha/a.json", Data(repeating: 7, count: 4096))],
                                  entries: [.file("cache/alpha/a.json", Data(repeating: 7, count: 4096))], compression: compression)
        var data = try Data(contentsOf: archive)
        // After gzip's 10-byte header (zstd's frame header is shorter still): 0xFF bytes make an
        // invalid block, so libarchive fails while opening, before any entry is read.
        let start = compression == .gzip ? 10 : 6
        data.replaceSubrange(start ..< start + 24, with: Data(repeating: 0xFF, count: 24))
        try data.write(to: archive)
        let fd = open(archive.path, O_RDONLY)
        defer { close(fd) }
        #expect(throws: ArchiveError.self) {
            let reader = try ArchiveReader(fd: fd)
            while try reader.next() != nil {}
        }
        try expectRefused(archive) { error in
            switch error {
            case .truncated, .notAnArchive: true
            default: false
            }
        }
    }

    @Test("a writer that cannot start (a compression level out of range) throws, not a crash")
    func writerFailsToStart() throws {
        let url = root.url.appendingPathComponent("never.tar.gz")
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        #expect(throws: ArchiveError.self) { _ = try ArchiveWriter(fd: fd, compression: .gzip, level: 99) }
    }

    @Test("compression bombs and entry-count bombs hit their limits")
    func bombs() throws {
        let zeros = Data(count: 40 << 20)
        let bomb = try hostile(listed: [("cache/alpha/zeros", zeros)], entries: [.file("cache/alpha/zeros", zeros)])
        #expect(FileSystem.attributes(of: bomb)!.size < 1 << 20)
        try expectRefused(bomb) { $0 == .compressionRatio(limit: 200) }
        try expectRefused(bomb, limits: ArchiveLimits(maxBytes: 10 << 20)) { $0 == .tooLarge(limit: 10 << 20) }
        let many = (0..<20).map { ("cache/alpha/f\($0)", Data("\($0)".utf8)) }
        try expectRefused(try hostile(listed: many, entries: many.map { .file($0.0, $0.1) }), limits: ArchiveLimits(maxEntries: 10)) {
            $0 == .tooManyEntries(limit: 10)
        }
    }

    /// An SQLite file made by the sample migrations plus `extra` SQL, as bytes.
    func database(_ extra: String, rows: Int = 3) throws -> Data {
        let url = root.url.appendingPathComponent("made-\(UUID().uuidString).sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try SampleDomain.migrator.migrate(queue)
        try queue.write { db in
            for index in 0..<rows { try db.execute(sql: "INSERT INTO row (text) VALUES (?)", arguments: ["r\(index)"]) }
            if !extra.isEmpty { try db.execute(sql: extra) }
        }
        try queue.close()
        return try Data(contentsOf: url)
    }

    @Test("an imported database is rebuilt: triggers, views, extra tables, a foreign schema, bad rows and sidecars are refused")
    func hostileDatabases() throws {
        let cases: [(String, String)] = [
            ("CREATE TRIGGER evil AFTER INSERT ON row BEGIN UPDATE row SET text = 'owned'; END", "an extra trigger 'evil'"),
            ("CREATE VIEW peek AS SELECT * FROM row", "an extra view 'peek'"),
            ("CREATE TABLE stash (x)", "an extra table 'stash'"),
            ("CREATE INDEX sneaky ON row(text)", "an extra index 'sneaky'"),
            ("DROP TABLE row; CREATE TABLE row (id INTEGER PRIMARY KEY, text TEXT NOT NULL, owner TEXT)", "table 'row' is defined differently"),
            ("INSERT INTO row (text) VALUES (x'00ff')", "row 4 of row: text is not text"),
            ("DELETE FROM grdb_migrations", "other migrations"),
        ]
        for (sql, reason) in cases {
            let bytes = try database(sql)
            try expectRefused(try hostile(listed: [("data/alpha/store.sqlite", bytes)], entries: [.file("data/alpha/store.sqlite", bytes)])) {
                if case .unsafeEntry(let path, let why) = $0 { path == "data/alpha/store.sqlite" && why.contains(reason) } else { false }
            }
        }
        // A dry run runs the same checks (it extracts into staging, then removes it).
        let trigger = try database("CREATE TRIGGER evil AFTER INSERT ON row BEGIN SELECT 1; END")
        let dry = try hostile(listed: [("data/alpha/store.sqlite", trigger)], entries: [.file("data/alpha/store.sqlite", trigger)])
        #expect(throws: ArchiveError.self) { try importArchive(dry, into: profile("dry"), options: .init(mode: .replace, dryRun: true)) }
        #expect(FileSystem.regularFiles(under: profile("dry").dataDirectory).filter { !$0.relativePath.hasPrefix(".staging") }.isEmpty)
        // Sidecars are refused by name, before any byte is extracted.
        let sound = try database("")
        for sidecar in ["-wal", "-shm", "-journal"] {
            let path = "data/alpha/store.sqlite\(sidecar)"
            try expectRefused(try hostile(listed: [("data/alpha/store.sqlite", sound), (path, Data("x".utf8))],
                                          entries: [.file("data/alpha/store.sqlite", sound), .file(path, Data("x".utf8))])) {
                if case .unsafeEntry(let refused, let why) = $0 { refused == path && why.contains("never imported") } else { false }
            }
        }
        // A database where the domain keeps none.
        try expectRefused(try hostile(listed: [("cache/alpha/other.db", sound)], entries: [.file("cache/alpha/other.db", sound)])) {
            if case .unsafeEntry(_, let why) = $0 { why.contains("keeps no database there") } else { false }
        }
    }

    @Test("a sound imported database arrives rebuilt: its rows, and exactly the schema the migrations create")
    func soundDatabaseIsRebuilt() throws {
        let bytes = try database("", rows: 40)
        let archive = try hostile(listed: [("data/alpha/store.sqlite", bytes)], entries: [.file("data/alpha/store.sqlite", bytes)])
        let target = profile("fresh")
        _ = try importArchive(archive, into: target, options: .init(mode: .replace))
        let imported = target.dataDirectory(for: "alpha").appendingPathComponent("store.sqlite")
        let queue = try DatabaseQueue(path: imported.path)
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM row") } == 40)
        let reference = try DatabaseQueue()
        try SampleDomain.migrator.migrate(reference)
        let schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
        let importedSchema = try queue.read { try Row.fetchAll($0, sql: schema) }
        let expectedSchema = try reference.read { try Row.fetchAll($0, sql: schema) }
        #expect(importedSchema == expectedSchema)
    }

    @Test("--merge moves a live database's -wal and -shm aside with it: the imported database never meets another's WAL")
    func mergeKeepsSidecarsApart() throws {
        let target = profile("walled")
        let path = target.dataDirectory(for: "alpha").appendingPathComponent("store.sqlite")
        try FileSystem.createDirectory(path.deletingLastPathComponent())
        let live = try DatabasePool(path: path.path)
        try SampleDomain.migrator.migrate(live)
        try live.write { db in
            for index in 0..<200 { try db.execute(sql: "INSERT INTO row (text) VALUES (?)", arguments: ["local \(index)"]) }
        }
        #expect(FileManager.default.fileExists(atPath: path.path + "-wal"))
        let bytes = try database("", rows: 5)
        let archive = try hostile(listed: [("data/alpha/store.sqlite", bytes)], entries: [.file("data/alpha/store.sqlite", bytes)])
        _ = try importArchive(archive, into: target, options: .init(mode: .merge))
        #expect(!FileManager.default.fileExists(atPath: path.path + "-wal"))
        let imported = try DatabaseQueue(path: path.path)
        #expect(try imported.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
        #expect(try imported.read { try String.fetchAll($0, sql: "SELECT text FROM row ORDER BY id") } == (0..<5).map { "r\($0)" })
        try live.close()
    }
}
