import ArgumentParser
@testable import BradOSArchive
@testable import BradOSCore
import BradOSStorage
import Crypto
import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

// Exports and imports cancelled or signalled, and files changed while an export reads them.
extension CacheArchiveTests {
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
        var known = ExportHashMemo()
        // A recorded hash that is not the content's: used as is, so the file was not read.
        known.entries[file.path] = ExportHashMemo.entry(info, sha256: "recorded")
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
        let recorded = ExportHashMemo.load(source)
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
}
