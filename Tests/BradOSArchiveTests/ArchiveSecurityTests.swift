@testable import BradOSArchive
import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation
import TestSupport
import Testing

/// Issue 16, the archive's part: a hostile manifest never traps, a killed run leaves nothing.
@Suite("Security: manifests, staging leftovers")
struct ArchiveSecurityTests {
    func manifest(files: [CacheArchiveManifest.File], domains: [CacheArchiveManifest.Domain]) -> CacheArchiveManifest {
        CacheArchiveManifest(format: CacheArchiveManifest.formatName, formatVersion: 1, bradosVersion: "t", profile: "default", accounts: [:],
                             createdAt: Date(), compression: "tar.zst", domains: domains, files: files)
    }

    @Test("a manifest whose sizes overflow a sum is refused, not a trap; checks are one pass")
    func manifestOverflow() throws {
        let sha = String(repeating: "a", count: 64)
        let huge = Int64.max / 2 + 1
        let files = (0..<2).map { CacheArchiveManifest.File(path: "data/visits/f\($0)", domain: "visits", size: huge, sha256: sha, mode: 0o600, kind: "file") }
        // The domain's byte count wraps to what a wrapping sum would give.
        let crafted = manifest(files: files, domains: [.init(name: "visits", dataVersion: 1, files: 2, bytes: huge &+ huge)])
        #expect(throws: ArchiveError.self) { try crafted.validate(maxEntries: 10, maxBytes: .max) }
        let negative = manifest(files: [.init(path: "data/visits/f", domain: "visits", size: -5, sha256: sha, mode: 0o600, kind: "file")],
                                domains: [.init(name: "visits", dataVersion: 1, files: 1, bytes: -5)])
        #expect(throws: ArchiveError.self) { try negative.validate(maxEntries: 10, maxBytes: .max) }
        #expect(crafted.totalBytes == .max)
        // 100,000 files over 64 domains: one pass (a per-domain filter would be 6.4 million steps).
        let domains = (0..<64).map { CacheArchiveManifest.Domain(name: "d\($0)", dataVersion: 1, files: 1563, bytes: 1563) }
        var many: [CacheArchiveManifest.File] = []
        for index in 0..<(64 * 1563) {
            many.append(.init(path: "data/d\(index % 64)/f\(index)", domain: "d\(index % 64)", size: 1, sha256: sha, mode: 0o600, kind: "file"))
        }
        try manifest(files: many, domains: domains).validate(maxEntries: 200_000, maxBytes: .max)
        let tooMany = (0...CacheArchiveManifest.maxDomains).map { CacheArchiveManifest.Domain(name: "d\($0)", dataVersion: 1, files: 0, bytes: 0) }
        #expect(throws: ArchiveError.self) { try manifest(files: [], domains: tooMany).validate(maxEntries: 10, maxBytes: .max) }
    }

    @Test("a killed export's database copies are removed by the next command; a failed rollback's previous data is kept on both sides")
    func stagingLeftovers() throws {
        let dir = TemporaryDirectory()
        let paths = Paths.resolve(environment: ["BRADOS_HOME": dir.url.path])
        let profile = paths.profile(.default)
        // A killed export: its lock is not held.
        let export = profile.cacheDirectory.appendingPathComponent(".staging/export-42", isDirectory: true)
        try AtomicFile.write(Data("SQLite format 3\0 private messages".utf8), to: export.appendingPathComponent("coach-0.sqlite"))
        // A running export elsewhere: its lock is held, so it is left alone.
        let running = profile.cacheDirectory.appendingPathComponent(".staging/export-7", isDirectory: true)
        try FileSystem.createDirectory(running)
        let lock = try FileLock(url: running.appendingPathComponent(".lock"))
        try lock.lock()
        CacheImportRecovery.recover(paths)
        #expect(!FileManager.default.fileExists(atPath: export.path))
        #expect(FileManager.default.fileExists(atPath: running.path))
        lock.unlock()

        // A failed rollback: the journal (data side) cannot be undone; the cache side holds the previous data.
        let dataSide = profile.dataDirectory.appendingPathComponent(".staging/import-9", isDirectory: true)
        let cacheSide = profile.cacheDirectory.appendingPathComponent(".staging/import-9", isDirectory: true)
        let previous = cacheSide.appendingPathComponent(".replaced-visits/old.json")
        try AtomicFile.write(Data("previous".utf8), to: previous)
        let blocked = dir.url.appendingPathComponent("no-such-folder/visits").path
        let records = [SwapJournal.Record(from: blocked, to: previous.deletingLastPathComponent().path)]
        try AtomicFile.write(try JSONCoding.encode(records), to: dataSide.appendingPathComponent("journal.json"))
        #expect(CacheImportRecovery.recover(paths).isEmpty)
        #expect(FileManager.default.fileExists(atPath: previous.path), "the previous data the error message points to was deleted")
        #expect(FileManager.default.fileExists(atPath: dataSide.appendingPathComponent("journal.json").path))
    }
}
