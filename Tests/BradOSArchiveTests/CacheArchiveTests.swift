import ArgumentParser
@testable import BradOSArchive
import BradOSAuth
@testable import BradOSCore
import BradOSStorage
import Crypto
import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

/// A domain with ordinary folders, for the archive tests.
struct SampleDomain: ShapesArchives {
    var name: String
    var summary: String { "sample" }
    var command: any ParsableCommand.Type { SampleCommand.self }
    struct SampleCommand: ParsableCommand {}

    /// A sample domain may keep `data/<name>/store.sqlite`, made by these migrations.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE row (id INTEGER PRIMARY KEY, text TEXT NOT NULL)") }
        return migrator
    }

    func prepareImport(cache: URL, data: URL, context: ImportContext) throws {
        try ImportedDatabases.rebuild(domain: name, cache: cache, data: data, databases: ["data/store.sqlite": { url, label in
            try SQLiteRebuild.rebuild(url, label: label, migrator: Self.migrator, tables: [
                .init("row", columns: ["id", "text"]) { values throws(SQLiteRebuild.RowProblem) in
                    try ColumnCheck.integer(values[0], "id")
                    try ColumnCheck.text(values[1], "text")
                },
            ])
        }])
    }
}

@Suite("Cache archives: export, verify, import, hostile input")
struct CacheArchiveTests {
    let root = TemporaryDirectory("archive")
    var paths: Paths { Paths.resolve(environment: ["BRADOS_HOME": root.url.path]) }
    let plugins: [any DomainPlugin] = [SampleDomain(name: "alpha"), SampleDomain(name: "beta")]

    func profile(_ name: String) -> ProfileScope { paths.profile(ProfileName(rawValue: name)!) }

    /// Fills a profile: files in both domains, nested folders, and an SQLite database.
    func fill(_ scope: ProfileScope, seed: UInt8 = 1) throws {
        let files: [(URL, Data)] = [
            (scope.cacheDirectory(for: "alpha").appendingPathComponent("1024/ab/blob"), Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) })),
            (scope.cacheDirectory(for: "alpha").appendingPathComponent("snapshot.json"), Data(#"{"albums":[1,2,3]}"#.utf8)),
            (scope.dataDirectory(for: "beta").appendingPathComponent("notes.json"), Data(#"{"n":\#(seed)}"#.utf8)),
        ]
        for (url, data) in files { try AtomicFile.write(data, to: url) }
        let database = try DatabaseQueue(path: scope.dataDirectory(for: "beta").appendingPathComponent("store.sqlite").path)
        try SampleDomain.migrator.migrate(database)
        try database.write { db in
            for index in 0..<500 { try db.execute(sql: "INSERT INTO row (text) VALUES (?)", arguments: ["row \(index) \(seed)"]) }
        }
    }

    /// Every file under the profile, with a SHA-256 of its content (SQLite databases by their rows).
    func snapshot(_ scope: ProfileScope) throws -> [String: String] {
        var result: [String: String] = [:]
        for (prefix, folder) in [("cache", scope.cacheDirectory), ("data", scope.dataDirectory)] {
            // `imported.json` is the record of whose data an import brought, not a domain's data.
            for file in FileSystem.regularFiles(under: folder) where !file.relativePath.hasSuffix("-wal") && !file.relativePath.hasSuffix("-shm")
                && !(prefix == "data" && file.relativePath == "imported.json") {
                if file.relativePath.hasSuffix(".sqlite") {
                    let rows = try DatabaseQueue(path: file.url.path).read { try String.fetchAll($0, sql: "SELECT text FROM row ORDER BY id") }
                    result["\(prefix)/\(file.relativePath)"] = rows.joined(separator: "|")
                } else {
                    result["\(prefix)/\(file.relativePath)"] = Hex.encode(SHA256.hash(data: try Data(contentsOf: file.url)))
                }
            }
        }
        return result
    }

    func export(_ scope: ProfileScope, compression: ArchiveCompression = .zstd, accounts: [String: String] = ["api": "user-1"]) throws -> URL {
        let url = root.url.appendingPathComponent("export-\(UUID().uuidString).\(compression.rawValue)")
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        _ = try CacheExporter(profile: scope, plugins: plugins, accounts: accounts, stagingRoot: root.url.appendingPathComponent(".staging"))
            .export(to: fd, options: .init(compression: compression))
        return url
    }

    func importer(_ scope: ProfileScope, accounts: [String: String] = [:]) -> CacheImporter {
        CacheImporter(target: scope, plugins: plugins, accounts: accounts, cacheStaging: paths.cacheRoot.appendingPathComponent(".staging"),
                      dataStaging: paths.dataRoot.appendingPathComponent(".staging"))
    }

    func importArchive(_ url: URL, into scope: ProfileScope, options: CacheImporter.Options = .init(), accounts: [String: String] = [:]) throws -> CacheImporter.Report {
        let fd = open(url.path, O_RDONLY)
        defer { close(fd) }
        return try importer(scope, accounts: accounts).importArchive(from: fd, options: options)
    }

    @Test("a full disk is said as such: an archive written to /dev/full, a database that cannot grow; never 'clear the cache'")
    func diskFull() throws {
        let source = profile("default")
        try fill(source)
        let full = open("/dev/full", O_WRONLY)
        defer { close(full) }
        #expect(throws: ArchiveError.destinationFull(path: nil)) {
            try CacheExporter(profile: source, plugins: plugins, accounts: [:], stagingRoot: root.url.appendingPathComponent(".staging"))
                .export(to: full, options: .init(compression: .gzip))
        }
        #expect(ArchiveError.destinationFull(path: "/mnt/usb/b.tar.zst").summary == "The disk is full: the archive /mnt/usb/b.tar.zst could not be written.")
        #expect(ArchiveError.destinationFull(path: nil).recovery?.contains("-o PATH") == true)
        let database = StorageError.database(DatabaseError(resultCode: .SQLITE_FULL), path: "/c/coach.sqlite", writing: "/c/.staging/x/coach.sqlite")
        #expect(database.summary == "Could not write /c/.staging/x/coach.sqlite: the disk is full (No space left on device).")
        #expect(database.recovery?.contains("cache clear") == false)
        // Any other database failure keeps its own words and names the visible `cache clear DOMAIN`.
        let broken = StorageError.database(DatabaseError(resultCode: .SQLITE_CORRUPT, message: "malformed"), path: "/c/coach.sqlite")
        #expect(broken.summary == "The database /c/coach.sqlite failed: malformed.")
        #expect(broken.recovery == "If it persists, clear that domain's cache (`brados cache clear DOMAIN`); it is rebuilt on demand.")
    }

    @Test("round trip: export, then import into an empty profile (--as) gives the same files; gzip and zstd", arguments: ArchiveCompression.allCases)
    func roundTrip(_ compression: ArchiveCompression) throws {
        let source = profile("default")
        try fill(source)
        let archive = try export(source, compression: compression)
        let fd = open(archive.path, O_RDONLY)
        let report = try CacheVerifier().verify(fd: fd)
        close(fd)
        #expect(report.files == 4 && report.profile == "default" && report.accounts == ["api": "user-1"])
        let target = profile("laptop")
        let imported = try importArchive(archive, into: target)
        #expect(imported.domains.map(\.action) == ["add", "add"])
        #expect(try snapshot(target) == snapshot(source))
        // Whose data it is, recorded for the labels of another account's data.
        let record = ImportedData.load(target).entries
        #expect(record.map(\.domains) == [["alpha", "beta"]] && record.first?.fromProfile == "default" && record.first?.accounts == ["api": "user-1"])
        #expect(record.first?.isFromAnotherAccount(than: ["api": "user-2"]) == true && record.first?.isFromAnotherAccount(than: ["api": "user-1"]) == false)
        #expect(record.first?.isFromAnotherAccount(than: [:]) == false, "a profile signed in to nothing cannot tell")
        // Importing again needs a decision, then replaces.
        #expect(throws: ArchiveError.targetNotEmpty(domains: ["alpha", "beta"])) { try importArchive(archive, into: target) }
        try AtomicFile.write(Data("stray".utf8), to: target.cacheDirectory(for: "alpha").appendingPathComponent("stray"))
        _ = try importArchive(archive, into: target, options: .init(mode: .replace))
        #expect(try snapshot(target) == snapshot(source))
        // Merge keeps files the archive does not have.
        try AtomicFile.write(Data("stray".utf8), to: target.cacheDirectory(for: "alpha").appendingPathComponent("stray"))
        _ = try importArchive(archive, into: target, options: .init(mode: .merge))
        #expect(try snapshot(target).count == snapshot(source).count + 1)
        // Nothing is left in staging.
        #expect(FileSystem.regularFiles(under: paths.cacheRoot.appendingPathComponent(".staging")).isEmpty)
    }

    @Test("dry run and domain selection change nothing else")
    func dryRunAndDomains() throws {
        let source = profile("default")
        try fill(source)
        let archive = try export(source)
        let target = profile("other")
        let dry = try importArchive(archive, into: target, options: .init(dryRun: true))
        #expect(dry.dryRun && dry.domains.count == 2)
        #expect(try entries(under: paths.cacheRoot.appendingPathComponent(".staging")).isEmpty)
        #expect(try entries(under: paths.dataRoot.appendingPathComponent(".staging")).isEmpty)
        #expect(FileSystem.regularFiles(under: target.cacheDirectory).isEmpty && FileSystem.regularFiles(under: target.dataDirectory).isEmpty)
        let only = try importArchive(archive, into: target, options: .init(domains: ["beta"]))
        #expect(only.domains.map(\.domain) == ["beta"] && only.skipped == ["alpha"])
        #expect(FileSystem.regularFiles(under: target.cacheDirectory).isEmpty)
        #expect(throws: ArchiveError.unknownDomain("gamma")) { try importArchive(archive, into: target, options: .init(domains: ["gamma"])) }
    }

    @Test("data of one account is not imported into a profile signed in to another, unless forced")
    func foreignAccount() throws {
        let source = profile("default")
        try fill(source)
        let archive = try export(source, accounts: ["api": "user-1"])
        let target = profile("bob")
        #expect(throws: ArchiveError.foreignAccount(service: "api", archive: "user-1", profile: "bob", target: "user-2")) {
            try importArchive(archive, into: target, accounts: ["api": "user-2"])
        }
        // An archive that does not say it holds this account's data is not trusted either.
        #expect(throws: ArchiveError.foreignAccount(service: "supabase", archive: "no account", profile: "bob", target: "s-1")) {
            try importArchive(archive, into: target, accounts: ["api": "user-1", "supabase": "s-1"])
        }
        #expect(FileSystem.regularFiles(under: target.dataDirectory).isEmpty)
        _ = try importArchive(archive, into: target, options: .init(force: true), accounts: ["api": "user-2"])
        #expect(try snapshot(target) == snapshot(source))
        _ = try importArchive(archive, into: profile("same"), accounts: ["api": "user-1"])
    }

    @Test("export while another connection writes the database gives a consistent copy")
    func consistentBackupUnderWrites() async throws {
        let source = profile("default")
        try fill(source)
        let path = source.dataDirectory(for: "beta").appendingPathComponent("store.sqlite").path
        let writer = try DatabasePool(path: path)
        let writing = Task.detached {
            for index in 0..<400 {
                try await writer.write { db in
                    try db.execute(sql: "INSERT INTO row (text) VALUES (?)", arguments: ["concurrent \(index)"])
                    try db.execute(sql: "INSERT INTO row (text) VALUES (?)", arguments: ["pair \(index)"])
                }
            }
        }
        let archive = try await Task.detached { try export(source) }.value
        try await writing.value
        let target = profile("copy")
        _ = try importArchive(archive, into: target)
        let copy = try DatabaseQueue(path: target.dataDirectory(for: "beta").appendingPathComponent("store.sqlite").path)
        let (check, concurrent, pairs) = try await copy.read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM row WHERE text LIKE 'concurrent %'") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM row WHERE text LIKE 'pair %'") ?? -1)
        }
        #expect(check == "ok")
        #expect(concurrent == pairs) // each transaction is in the copy whole or not at all
    }

    @Test("no credential appears in an archive")
    func noTokens() throws {
        let source = profile("default")
        try fill(source)
        let store = CredentialStore(paths: paths, profile: source.name)
        try store.save(CredentialSet(account: Credential(accessToken: "at_SECRET_TOKEN", refreshToken: "rt_SECRET_REFRESH", expiresAt: nil,
                                                          user: "demo", userID: "user-1", server: "embedded", obtainedAt: Date())))
        let archive = try export(source)
        let reader = try ArchiveReader(fd: open(archive.path, O_RDONLY))
        var everything = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { buffer.deallocate() }
        while let header = try reader.next() {
            everything.append(Data(header.path.utf8))
            while case let count = try reader.read(into: buffer), count > 0 { everything.append(contentsOf: buffer[0..<count]) }
        }
        #expect(everything.range(of: Data("SECRET".utf8)) == nil)
    }

    /// Everything (files and folders) under a folder.
    func entries(under folder: URL) throws -> [String] {
        guard FileSystem.exists(folder) else { return [] }
        return FileManager.default.enumerator(atPath: folder.path)?.allObjects.compactMap { $0 as? String } ?? []
    }

    @Test("paths are checked on bytes: a '/' hidden in a grapheme cluster, hidden names and odd characters are refused")
    func pathRules() throws {
        for path in ["cache/alpha/A\u{600}/../../evil", "cache/alpha/x/\u{301}../evil", "cache/alpha/../evil", "/etc/passwd",
                     "cache/alpha/.hidden", "cache/alpha/a b", "cache/alpha/caf\u{E9}", "cache//alpha/x", "cache/alpha/x/", "cache/alpha/x\\y"] {
            #expect(throws: ArchiveError.self, "\(path)") { try CacheArchiveManifest.checkPath(path) }
        }
        for path in ["cache/library/artwork/1024/ab/0123abcdef", "data/coach/coach.sqlite", "data/visits/cached-visits.json"] {
            try CacheArchiveManifest.checkPath(path)
        }
    }
}
