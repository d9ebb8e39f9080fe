@testable import BradOSArchive
@testable import BradOSCore
import ArgumentParser
import Crypto
import Foundation
import GRDB
import Synchronization
import Testing
import TestSupport

/// A domain with ordinary folders, for the archive tests.
struct SampleDomain: DomainPlugin {
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

    func prepareImport(cache: URL, data: URL) throws {
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
            for file in FileSystem.regularFiles(under: folder) where !file.relativePath.hasSuffix("-wal") && !file.relativePath.hasSuffix("-shm") {
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

    /// What a killed import leaves: staged data for `beta`, a journal of the one move it made
    /// (the target's `beta` aside, the staged one in its place), no lock holder.
    /// - Returns: the import's staging folder.
    func killedImport(_ name: String, into target: ProfileScope) throws -> URL {
        let folder = paths.dataRoot.appendingPathComponent(".staging/\(name)", isDirectory: true)
        let staged = folder.appendingPathComponent("beta", isDirectory: true)
        try FileSystem.createDirectory(staged)
        try AtomicFile.write(Data("new".utf8), to: staged.appendingPathComponent("notes.json"))
        var journal = SwapJournal(url: folder.appendingPathComponent("journal.json"))
        try journal.replace(target.dataDirectory(for: "beta"), with: staged, trash: folder.appendingPathComponent(".replaced-beta"))
        return folder
    }

    @Test("an import killed mid-swap is rolled back by the next brados: the profile is as it was")
    func recoveryAfterKill() throws {
        let source = profile("default")
        try fill(source, seed: 3)
        let target = profile("victim")
        try fill(target, seed: 9)
        let before = try snapshot(target)
        let folder = try killedImport("import-1", into: target)
        #expect(try snapshot(target) != before)
        // A live import (its lock held) is left alone.
        let lock = try FileLock(url: folder.appendingPathComponent(".lock"))
        try lock.lock()
        #expect(CacheImportRecovery.recover(paths).isEmpty)
        lock.unlock()
        #expect(CacheImportRecovery.recover(paths) == [folder])
        #expect(try snapshot(target) == before)
        #expect(!FileSystem.exists(folder))
    }

    @Test("commands look for a killed import only when the staging marker says one may have run; the marker goes once nothing is left")
    func recoveryMarker() throws {
        let target = profile("victim")
        try fill(target, seed: 5)
        let before = try snapshot(target)
        let marker = StagingMarker(paths: paths)
        // An import holds the marker from before its first staging folder; killed mid-swap.
        let hold = try marker.hold()
        let folder = try killedImport("import-3", into: target)
        hold.release()
        #expect(marker.isSet)
        #expect(CacheImportRecovery.recoverIfMarked(paths) == [folder])
        #expect(try snapshot(target) == before)
        #expect(!marker.isSet, "the marker stays after everything was recovered")
        // Without the marker, nothing is looked at (the folder of an import from before the
        // marker existed is left to `recover`).
        try FileSystem.createDirectory(folder)
        #expect(CacheImportRecovery.recoverIfMarked(paths).isEmpty)
        #expect(FileSystem.exists(folder))
        // A running import's hold keeps the marker even when its folders are all there is.
        let running = try marker.hold()
        #expect(CacheImportRecovery.recoverIfMarked(paths).isEmpty)
        #expect(marker.isSet)
        running.release()
        #expect(CacheImportRecovery.recoverIfMarked(paths).isEmpty)
        #expect(!marker.isSet)
        // While recovery looks, no import or export can take the marker (it would wait), so none
        // can make a staging folder that the marker's removal then hides from the next command.
        _ = try marker.hold()
        let excluded = marker.recover {
            let other = open(marker.url.path, O_RDONLY | O_CLOEXEC)
            defer { close(other) }
            return (flock(other, LOCK_SH | LOCK_NB) != 0 ? [marker.url] : [], 0)
        }
        #expect(excluded == [marker.url], "an import could take the marker while recovery was looking")
        #expect(!marker.isSet)
    }

    @Test("the key-value store is inside the journal: a kill after the load puts back the store as it was (or removes one that was not there)")
    func keyValueStoreInJournal() throws {
        let target = profile("victim")
        try fill(target, seed: 4)
        try AtomicFile.write(Data(#"{"visits":"before"}"#.utf8), to: target.defaultsFile)
        let before = try snapshot(target)
        let folder = paths.dataRoot.appendingPathComponent(".staging/import-2", isDirectory: true)
        var journal = SwapJournal(url: folder.appendingPathComponent("journal.json"))
        try journal.preserve(target.defaultsFile, backup: folder.appendingPathComponent("defaults-before.json"))
        try AtomicFile.write(Data(#"{"visits":"imported"}"#.utf8), to: target.defaultsFile)
        // Killed here: the next brados rolls the store back with the folders.
        #expect(CacheImportRecovery.recover(paths) == [folder])
        #expect(try AtomicFile.readIfPresent(target.defaultsFile) == Data(#"{"visits":"before"}"#.utf8))
        #expect(try snapshot(target) == before)
        // A store that did not exist before the import does not exist after its rollback.
        let fresh = profile("fresh")
        var second = SwapJournal(url: folder.appendingPathComponent("journal.json"))
        try second.preserve(fresh.defaultsFile, backup: folder.appendingPathComponent("defaults-before.json"))
        try AtomicFile.write(Data("{}".utf8), to: fresh.defaultsFile)
        let rolledBack = second.rollBack()
        #expect(rolledBack)
        #expect(!FileSystem.exists(fresh.defaultsFile))
        // Nothing of either import is left, not even the `.staging` folders.
        _ = CacheImportRecovery.recover(paths)
        #expect(!FileSystem.exists(paths.dataRoot.appendingPathComponent(".staging")))
        #expect(!FileSystem.exists(target.dataDirectory.appendingPathComponent(".staging")))
    }

    @Test("a failed import leaves no .staging folder behind")
    func failedImportLeavesNoStaging() throws {
        let source = profile("default")
        try fill(source)
        let archive = try export(source)
        let data = try Data(contentsOf: archive)
        let truncated = root.url.appendingPathComponent("truncated.tar.zst")
        try data.prefix(data.count / 2).write(to: truncated)
        let target = profile("other")
        #expect(throws: ArchiveError.self) { try importArchive(truncated, into: target) }
        for side in [paths.cacheRoot, paths.dataRoot] {
            #expect(!FileSystem.exists(side.appendingPathComponent(".staging")))
        }
        #expect(FileSystem.regularFiles(under: target.cacheDirectory).isEmpty && FileSystem.regularFiles(under: target.dataDirectory).isEmpty)
    }

    @Test("an export cancelled midway (Ctrl-C, SIGTERM, SIGHUP) stops at the next chunk: no archive, no temporary file, no staging")
    func cancelledExport() async throws {
        let source = profile("default")
        try fill(source)
        try AtomicFile.write(Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }), to: source.cacheDirectory(for: "alpha").appendingPathComponent("2048/cd/big"))
        let out = root.url.appendingPathComponent("out", isDirectory: true)
        try FileSystem.createDirectory(out)
        let destination = out.appendingPathComponent("backup.tar.zst")
        let exporter = CacheExporter(profile: source, plugins: plugins, accounts: [:], stagingRoot: root.url.appendingPathComponent(".staging"))
        let written = Mutex<Int64>(0)
        let result = await Task {
            try exporter.export(toFile: destination, overwrite: false, options: .init()) { done, _ in
                written.withLock { $0 = done }
                // The signal arrives once the first MiB is in the archive.
                if done >= 1 << 20 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(written.withLock { $0 } < 2 << 20, "the export went on after it was cancelled")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
        #expect(!FileSystem.exists(root.url.appendingPathComponent(".staging")))
    }

    @Test("an export signalled while the compressor drains (every byte already in) names no archive and says it was interrupted, to a file or a descriptor")
    func cancelledWhileCompressing() async throws {
        let source = profile("default")
        try fill(source)
        let out = root.url.appendingPathComponent("out", isDirectory: true)
        try FileSystem.createDirectory(out)
        let destination = out.appendingPathComponent("backup.tar.zst")
        var exporter = CacheExporter(profile: source, plugins: plugins, accounts: [:], stagingRoot: root.url.appendingPathComponent(".staging"))
        // zstd's worker threads do most of a level 3 export's compressing as they drain: the
        // signal lands there, after the last chunk was written.
        exporter.afterCompression = { withUnsafeCurrentTask { $0?.cancel() } }
        let toFile = await Task { [exporter] in try exporter.export(toFile: destination, overwrite: false, options: .init(level: 3)) }.result
        #expect(throws: CancellationError.self) { try toFile.get() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty, "an interrupted export leaves no file")
        let pipe = Pipe()
        let toDescriptor = await Task { [exporter] in
            try exporter.export(to: pipe.fileHandleForWriting.fileDescriptor, options: .init(level: 3))
        }.result
        #expect(throws: CancellationError.self) { try toDescriptor.get() }
        #expect(!FileSystem.exists(root.url.appendingPathComponent(".staging")))
    }

    @Test("a file rewritten in place between the hashing and the writing (same size, its time set back) fails the export")
    func rewrittenInPlace() async throws {
        let source = profile("default")
        try fill(source)
        let victim = source.dataDirectory(for: "beta").appendingPathComponent("notes.json")
        let destination = root.url.appendingPathComponent("rewritten.tar.zst")
        let exporter = CacheExporter(profile: source, plugins: plugins, accounts: [:], stagingRoot: root.url.appendingPathComponent(".staging"))
        var rewritten = false
        #expect(throws: ArchiveError.changedDuringExport(path: "data/beta/notes.json")) {
            try exporter.export(toFile: destination, overwrite: false, options: .init()) { _, _ in
                guard !rewritten else { return }
                rewritten = true
                var info = stat()
                stat(victim.path, &info)
                let fd = open(victim.path, O_WRONLY)
                var bytes = Array(#"{"n":9}"#.utf8)
                _ = write(fd, &bytes, bytes.count)
                close(fd)
                var times = [info.st_atim, info.st_mtim]
                utimensat(AT_FDCWD, victim.path, &times, 0)
            }
        }
        #expect(rewritten && !FileSystem.exists(destination))
    }

    @Test("a file changed within 2 s of the hashing is hashed again while written; an older one is trusted by its status")
    func racyFiles() throws {
        let file = root.url.appendingPathComponent("fresh.bin")
        try AtomicFile.write(Data(repeating: 7, count: 10_000), to: file)
        let export = ExportFile(archivePath: "cache/alpha/fresh.bin", url: file, kind: .file)
        let fresh = try #require(try CacheExporter.hash(export, domain: "alpha", source: file, hashingStarted: Date()))
        #expect(fresh.rehash && fresh.size == 10_000 && fresh.sha256 == Hex.encode(SHA256.hash(data: Data(repeating: 7, count: 10_000))))
        let settled = try #require(try CacheExporter.hash(export, domain: "alpha", source: file, hashingStarted: Date().addingTimeInterval(10)))
        #expect(!settled.rehash)
        var info = stat()
        stat(file.path, &info)
        #expect(CacheExporter.sameFile(info, as: settled))
        try AtomicFile.write(Data(repeating: 7, count: 10_000), to: file)
        stat(file.path, &info)
        #expect(!CacheExporter.sameFile(info, as: settled), "replaced by rename: another inode")
    }

    @Test("the export hash cache: a file with the status it was hashed with is not read again; any change of status reads it")
    func exportHashCache() throws {
        let file = root.url.appendingPathComponent("settled.bin")
        try AtomicFile.write(Data(repeating: 1, count: 5_000), to: file)
        let settledFile = ExportFile(archivePath: "cache/alpha/settled.bin", url: file, kind: .file)
        var info = stat()
        stat(file.path, &info)
        var known = ExportHashCache()
        // A recorded hash that is not the content's: used as is, so the file was not read.
        known.entries[file.path] = ExportHashCache.entry(info, sha256: "recorded")
        #expect(try CacheExporter.hash(settledFile, domain: "alpha", source: file, known: known)?.sha256 == "recorded")
        // Another status (here: rewritten, another inode) is hashed again.
        try AtomicFile.write(Data(repeating: 1, count: 5_000), to: file)
        let fresh = try #require(try CacheExporter.hash(settledFile, domain: "alpha", source: file, known: known))
        #expect(fresh.sha256 == Hex.encode(SHA256.hash(data: Data(repeating: 1, count: 5_000))))
        // An export records settled files (here: its clock 10 s on), and the next one uses them:
        // a recorded hash changed by hand ends up in the manifest, so that archive fails verify.
        let source = profile("default")
        try fill(source)
        let later = CacheExporter(profile: source, plugins: plugins, accounts: [:], stagingRoot: root.url.appendingPathComponent(".staging"),
                                  now: { Date().addingTimeInterval(10) })
        func exportLater() throws -> URL {
            let url = root.url.appendingPathComponent("later-\(UUID().uuidString).tar.zst")
            let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            defer { close(fd) }
            _ = try later.export(to: fd, options: .init())
            return url
        }
        func verifies(_ url: URL) -> Bool {
            let fd = open(url.path, O_RDONLY)
            defer { close(fd) }
            return (try? CacheVerifier().verify(fd: fd)) != nil
        }
        #expect(verifies(try exportLater()))
        let recorded = ExportHashCache.load(source)
        let blob = source.cacheDirectory(for: "alpha").appendingPathComponent("1024/ab/blob").path
        #expect(recorded.entries[blob] != nil, "\(recorded.entries.keys)")
        var wrong = recorded
        wrong.entries[blob]?.sha256 = String(repeating: "0", count: 64)
        wrong.save(source)
        #expect(!verifies(try exportLater()), "the recorded hash was not used")
        recorded.save(source)
        #expect(verifies(try exportLater()))
    }

    @Test("an import cancelled before its swap (Ctrl-C, SIGTERM, SIGHUP) changes nothing and leaves no staging")
    func cancelledImport() async throws {
        let source = profile("default")
        try fill(source)
        let archive = try export(source)
        let target = profile("other")
        try fill(target, seed: 9)
        let before = try snapshot(target)
        let importer = importer(target)
        let result = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let fd = open(archive.path, O_RDONLY)
            defer { close(fd) }
            return try importer.importArchive(from: fd, options: .init(mode: .replace))
        }.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try snapshot(target) == before)
        for side in [paths.cacheRoot, paths.dataRoot] {
            #expect(!FileSystem.exists(side.appendingPathComponent(".staging")))
        }
    }

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
            #expect(error.kind == .integrity || error.kind == .rejected, sourceLocation: sourceLocation)
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
            $0 == .unsupportedVersion(99)
        }
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
