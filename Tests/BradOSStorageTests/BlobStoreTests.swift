@testable import BradOSStorage
import Foundation
import TestSupport
import Testing

@Suite("Blob cache: size-capped LRU by last access, shared by processes")
struct BlobStoreTests {
    /// A fake PNG of `size` bytes whose content depends on `seed`.
    static func png(_ size: Int, seed: UInt8 = 1) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data.append(contentsOf: (0..<(size - 8)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
        return data
    }

    func cache(_ dir: TemporaryDirectory, capacity: Int64 = 1_000_000, clock: ManualClock = ManualClock(), memory: Int = 0) throws -> BlobStore {
        try BlobStore(directory: dir.url, configuration: BlobStoreConfiguration(capacity: capacity, trimRatio: 0.8, memoryCapacity: memory),
                      now: clock.dateProvider)
    }

    @Test("keys are consistent: the same identifier and bucket find the same blob, in <bucket>/<sha256>")
    func keys() throws {
        let dir = TemporaryDirectory()
        let blobs = try cache(dir)
        let key = BlobKey(bucket: "1024", identifier: "123|/library/metadata/123/thumb/1700000000|1024")
        try blobs.store(Self.png(1000), for: key)
        #expect(try blobs.data(for: BlobKey(bucket: "1024", identifier: key.identifier)) == Self.png(1000))
        #expect(try blobs.data(for: BlobKey(bucket: "2048", identifier: key.identifier)) == nil)
        #expect(BlobStore.fileName(key).count == 64)
        let name = BlobStore.fileName(key)
        #expect(blobs.fileURL(for: key).path == dir.url.appendingPathComponent("1024/\(name.prefix(2))/\(name)").path)
        #expect(FileManager.default.fileExists(atPath: blobs.fileURL(for: key).path))
    }

    @Test("removeAll never follows a bucket named by the (importable) index out of the cache folder")
    func removeAllIsPathSafe() throws {
        let root = TemporaryDirectory()
        let folder = root.url.appendingPathComponent("artwork")
        let victim = root.url.appendingPathComponent("victim")
        try FileSystem.createDirectory(victim)
        try Data("keep".utf8).write(to: victim.appendingPathComponent("precious"))
        let blobs = try BlobStore(directory: folder)
        try blobs.store(Self.png(1000), for: BlobKey(bucket: "1024", identifier: "a"))
        try blobs.database.write { db in
            try db.execute(sql: "INSERT INTO blob (bucket, name, identifier, size, checksum, accessedAt) VALUES ('../victim', ?, 'x', 1, 'c', 0)",
                           arguments: [String(repeating: "a", count: 64)])
        }
        try blobs.removeAll()
        #expect(FileManager.default.fileExists(atPath: victim.appendingPathComponent("precious").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("1024").path))
    }

    @Test("the lazy cache opens the index only on first use, and computes paths without opening it")
    func lazyCache() throws {
        let dir = TemporaryDirectory()
        let lazy = LazyBlobStore(directory: dir.url) { try BlobStore(directory: dir.url) }
        let key = BlobKey(bucket: "1024", identifier: "k")
        #expect(lazy.fileURL(for: key) == (try BlobStore(directory: dir.url)).fileURL(for: key))
        try FileSystem.remove(dir.url)
        _ = lazy.fileURL(for: key)
        #expect(!lazy.isOpen && !FileManager.default.fileExists(atPath: dir.url.path))
        #expect(try lazy.data(for: key) == nil)
        #expect(lazy.isOpen && FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("index.sqlite").path))
    }

    @Test("an index row naming a path outside the cache (an imported index) is never unlinked")
    func hostileIndexRows() throws {
        let dir = TemporaryDirectory()
        let victim = dir.url.appendingPathComponent("victim.txt")
        try Data("keep me".utf8).write(to: victim)
        let cacheDir = dir.url.appendingPathComponent("cache")
        do {
            let blobs = try BlobStore(directory: cacheDir, configuration: BlobStoreConfiguration(capacity: 10_000, trimRatio: 0.8))
            try blobs.database.write { db in
                try db.execute(sql: "INSERT INTO blob (bucket, name, identifier, size, checksum, accessedAt) VALUES ('..', './victim.txt', 'x', 50000, 'x', 0)")
            }
        }
        // Over the cap at open: the trim evicts the row, but touches no file outside the cache.
        let reopened = try BlobStore(directory: cacheDir, configuration: BlobStoreConfiguration(capacity: 10_000, trimRatio: 0.8))
        #expect(try reopened.stats().entries == 0)
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
    }

    @Test("entries persist across instances (another process sees them)")
    func persistence() throws {
        let dir = TemporaryDirectory()
        let key = BlobKey(bucket: "2048", identifier: "a")
        try cache(dir).store(Self.png(5000), for: key)
        let reopened = try cache(dir)
        #expect(try reopened.data(for: key) == Self.png(5000))
        #expect(try reopened.stats().bytes == 5000)
    }

    @Test("evicted files are emptied and reused by later writes; the index still matches the files")
    func evictedFilesAreRecycled() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let blobs = try cache(dir, capacity: 10_000, clock: clock)
        for index in 0..<5 {
            try blobs.store(Self.png(2_400, seed: UInt8(index)), for: BlobKey(bucket: "1024", identifier: "k\(index)"))
            clock.advance(by: .seconds(1))
        }
        let spareFolder = dir.url.appendingPathComponent(".spare")
        let spares = FileSystem.regularFiles(under: spareFolder)
        #expect(spares.count == 2) // 12 000 > 10 000: evicted down to 8 000, the two oldest
        #expect(spares.allSatisfy { $0.size == 0 })
        // The next write refills a spare instead of creating a file.
        try blobs.store(Self.png(1_000, seed: 7), for: BlobKey(bucket: "2048", identifier: "new"))
        #expect(FileSystem.regularFiles(under: spareFolder).count == 1)
        #expect(try blobs.data(for: BlobKey(bucket: "2048", identifier: "new")) == Self.png(1_000, seed: 7))
        let stats = try blobs.stats()
        let onDisk = ["1024", "2048"].flatMap { FileSystem.regularFiles(under: dir.url.appendingPathComponent($0)) }
        #expect(onDisk.count == stats.entries && onDisk.reduce(0) { $0 + $1.size } == stats.bytes)
        #expect(try blobs.data(for: BlobKey(bucket: "1024", identifier: "k4")) == Self.png(2_400, seed: 4))
    }

    @Test("a reused spare larger than the new blob is cut to the blob's size")
    func reusedSpareIsTruncated() throws {
        let dir = TemporaryDirectory()
        let spare = dir.url.appendingPathComponent("spare")
        try Data(repeating: 0xAB, count: 5_000).write(to: spare)
        let target = dir.url.appendingPathComponent("blob")
        let temporary = try AtomicFile.prepareTemporary(Self.png(100), for: target, reusing: spare)
        #expect(try Data(contentsOf: temporary) == Self.png(100))
        #expect(!FileManager.default.fileExists(atPath: spare.path))
        // A spare another process already claimed: a new file is created instead.
        let second = try AtomicFile.prepareTemporary(Self.png(50), for: target, reusing: spare)
        #expect(try Data(contentsOf: second) == Self.png(50))
    }

    @Test("spares left by earlier processes are adopted and trimmed to the pool's limit; stale staging files go")
    func sparesAdoptedAndBounded() throws {
        let dir = TemporaryDirectory()
        let folder = dir.url.appendingPathComponent(".spare")
        try FileSystem.createDirectory(folder)
        for index in 0..<10 { try Data().write(to: folder.appendingPathComponent("s\(index)")) }
        let staging = folder.appendingPathComponent(".staging-1")
        try Data(repeating: 1, count: 10).write(to: staging)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-600)], ofItemAtPath: staging.path)
        let pool = SparePool(directory: folder, limit: 4)
        #expect(FileSystem.regularFiles(under: folder).map(\.relativePath) == ["s0", "s1", "s2", "s3"])
        var taken: [String] = []
        while let spare = pool.take() { taken.append(spare.lastPathComponent) }
        #expect(taken.sorted() == ["s0", "s1", "s2", "s3"])
    }

    @Test("a recycled file is published empty under a new name, so no claimer ever sees it emptied later")
    func recycledFilesArePublishedEmpty() throws {
        let dir = TemporaryDirectory()
        let pool = SparePool(directory: dir.url.appendingPathComponent(".spare"), limit: 4)
        let victim = dir.url.appendingPathComponent("victim")
        try Data(repeating: 7, count: 4096).write(to: victim)
        pool.recycle(victim, name: "victim")
        let spares = FileSystem.regularFiles(under: dir.url.appendingPathComponent(".spare"))
        #expect(spares.count == 1 && spares[0].size == 0 && spares[0].relativePath != "victim" && !spares[0].relativePath.hasPrefix("."))
        #expect(!FileManager.default.fileExists(atPath: victim.path))
        // Another process adopting the folder sees only the published, empty spare.
        let other = SparePool(directory: dir.url.appendingPathComponent(".spare"), limit: 4)
        #expect(other.take()?.lastPathComponent == spares[0].relativePath)
    }

    @Test("eviction follows last access: a recently read entry survives, the least recently read goes first")
    func lruByAccess() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let blobs = try cache(dir, capacity: 10_000, clock: clock)
        for index in 0..<4 {
            try blobs.store(Self.png(2_000, seed: UInt8(index)), for: BlobKey(bucket: "1024", identifier: "k\(index)"))
            clock.advance(by: .seconds(1))
        }
        _ = try blobs.data(for: BlobKey(bucket: "1024", identifier: "k0")) // k0 is now the most recent
        clock.advance(by: .seconds(1))
        try blobs.store(Self.png(3_000, seed: 9), for: BlobKey(bucket: "1024", identifier: "k4")) // 11 000 > 10 000
        #expect(try blobs.data(for: BlobKey(bucket: "1024", identifier: "k0")) != nil)
        #expect(try blobs.data(for: BlobKey(bucket: "1024", identifier: "k1")) == nil)
        #expect(try blobs.data(for: BlobKey(bucket: "1024", identifier: "k4")) != nil)
        // Trimmed below the cap (to 80 %), not just to it.
        #expect(try blobs.stats().bytes <= 8_000)
    }

    @Test("the cap covers both buckets together and is never exceeded after a write")
    func capAcrossBuckets() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let blobs = try cache(dir, capacity: 50_000, clock: clock)
        for index in 0..<60 {
            let bucket = index.isMultiple(of: 3) ? "2048" : "1024"
            try blobs.store(Self.png(bucket == "2048" ? 4_000 : 1_500, seed: UInt8(index % 200)), for: BlobKey(bucket: bucket, identifier: "k\(index)"))
            clock.advance(by: .milliseconds(10))
            let stats = try blobs.stats()
            #expect(stats.bytes <= 50_000)
            #expect(stats.bytes == stats.buckets.reduce(0) { $0 + $1.bytes })
        }
        // The index matches the files on disk.
        let stats = try blobs.stats()
        let onDisk = ["1024", "2048"].flatMap { FileSystem.regularFiles(under: dir.url.appendingPathComponent($0)) }
        #expect(onDisk.count == stats.entries)
        #expect(onDisk.reduce(0) { $0 + $1.size } == stats.bytes)
        #expect(stats.buckets.map(\.bucket) == ["1024", "2048"])
    }

    @Test("a corrupt entry (truncated, altered, not an image) is discarded and reads as a miss", arguments: ["truncate", "alter", "text"])
    func corrupt(damage: String) throws {
        let dir = TemporaryDirectory()
        let blobs = try cache(dir)
        let key = BlobKey(bucket: "1024", identifier: "x")
        try blobs.store(Self.png(4000), for: key)
        let file = blobs.fileURL(for: key)
        switch damage {
        case "truncate": try Self.png(4000).prefix(100).write(to: file)
        case "alter": try Self.png(4000, seed: 77).write(to: file)
        default: try Data(repeating: 0x41, count: 4000).write(to: file)
        }
        let fresh = try cache(dir) // no memory copy
        #expect(try fresh.data(for: key) == nil)
        #expect(try fresh.stats().entries == 0)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("a lowered cap is enforced when the cache opens; a blob larger than the cap is not kept")
    func lowerCap() throws {
        let dir = TemporaryDirectory()
        let blobs = try cache(dir, capacity: 100_000)
        for index in 0..<10 { try blobs.store(Self.png(9_000, seed: UInt8(index)), for: BlobKey(bucket: "1024", identifier: "k\(index)")) }
        #expect(try blobs.stats().bytes == 90_000)
        let smaller = try cache(dir, capacity: 40_000)
        #expect(try smaller.stats().bytes <= 40_000)
        try smaller.store(Self.png(50_000), for: BlobKey(bucket: "2048", identifier: "huge"))
        #expect(try smaller.data(for: BlobKey(bucket: "2048", identifier: "huge")) == nil)
        #expect(try smaller.stats().bytes <= 40_000)
    }

    @Test("non-image data is refused on write")
    func refusesNonImages() throws {
        let dir = TemporaryDirectory()
        #expect(throws: StorageError.self) { try cache(dir).store(Data("<html>".utf8), for: BlobKey(bucket: "1024", identifier: "x")) }
    }

    @Test("trim evicts to the given size and removes files the index does not know")
    func trimAndOrphans() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let blobs = try cache(dir, clock: clock)
        for index in 0..<10 {
            try blobs.store(Self.png(1000, seed: UInt8(index)), for: BlobKey(bucket: "1024", identifier: "k\(index)"))
            clock.advance(by: .seconds(1))
        }
        let orphan = dir.url.appendingPathComponent("1024/orphan")
        try Self.png(500).write(to: orphan)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-600)], ofItemAtPath: orphan.path)
        let young = dir.url.appendingPathComponent("1024/young-write")
        try Self.png(500).write(to: young) // a write in flight elsewhere: spared
        let report = try blobs.trim(toBytes: 4000)
        #expect(report.evictedEntries == 6)
        #expect(report.orphanFilesRemoved == 1)
        #expect(FileManager.default.fileExists(atPath: young.path))
        #expect(report.remainingBytes == 4000)
        #expect(try blobs.data(for: BlobKey(bucket: "1024", identifier: "k9")) != nil)
        #expect(try blobs.data(for: BlobKey(bucket: "1024", identifier: "k0")) == nil)
    }

    @Test("writers on separate connections (as separate processes) keep the cap and the index consistent")
    func concurrentWriters() async throws {
        let dir = TemporaryDirectory()
        _ = try cache(dir, capacity: 200_000)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let blobs = try BlobStore(directory: dir.url, configuration: BlobStoreConfiguration(capacity: 200_000, memoryCapacity: 0))
                    for index in 0..<50 {
                        try blobs.store(Self.png(5_000 + index * 10, seed: UInt8(writer * 50 + index)),
                                        for: BlobKey(bucket: index.isMultiple(of: 2) ? "1024" : "2048", identifier: "shared-\(index % 30)"))
                        let stats = try blobs.stats()
                        #expect(stats.bytes <= 200_000)
                    }
                }
            }
            try await group.waitForAll()
        }
        let blobs = try cache(dir, capacity: 200_000)
        let stats = try blobs.stats()
        let onDisk = ["1024", "2048"].flatMap { FileSystem.regularFiles(under: dir.url.appendingPathComponent($0)) }
            .filter { !($0.relativePath as NSString).lastPathComponent.hasPrefix(".") }
        #expect(stats.bytes <= 200_000)
        #expect(onDisk.count == stats.entries)
        #expect(onDisk.reduce(0) { $0 + $1.size } == stats.bytes)
    }

    @Test("XXH64 matches the reference test vectors")
    func xxh64() {
        #expect(XXH64.hash(Data()) == 0xEF46_DB37_51D8_E999)
        #expect(XXH64.hash(Data("a".utf8)) == 0xD24E_C4F1_A98C_6E5B)
        #expect(XXH64.hash(Data("abc".utf8)) == 0x44BC_2CF5_AD77_0999)
        #expect(XXH64.hash(Data((0..<768).map { UInt8($0 % 256) })) == 0x8E03_C838_C596_036F)
    }

    @Test("reads only record access times; this process writes them before its evictions")
    func batchedAccessTimes() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let blobs = try cache(dir, capacity: 10_000, clock: clock)
        try blobs.store(Self.png(4_000, seed: 1), for: BlobKey(bucket: "1024", identifier: "old"))
        clock.advance(by: .seconds(1))
        try blobs.store(Self.png(4_000, seed: 2), for: BlobKey(bucket: "1024", identifier: "new"))
        clock.advance(by: .seconds(1))
        _ = try blobs.data(for: BlobKey(bucket: "1024", identifier: "old")) // recorded, not yet written
        // This process's own eviction writes the pending read first: "new" goes, "old" stays.
        clock.advance(by: .seconds(1))
        try blobs.store(Self.png(4_000, seed: 3), for: BlobKey(bucket: "1024", identifier: "third"))
        let fresh = try cache(dir, capacity: 10_000, clock: clock)
        #expect(try fresh.data(for: BlobKey(bucket: "1024", identifier: "old")) != nil)
        #expect(try fresh.data(for: BlobKey(bucket: "1024", identifier: "new")) == nil)
    }

    @Test("the index and files are private (0600 / 0700)")
    func permissions() throws {
        let dir = TemporaryDirectory()
        let blobs = try cache(dir)
        try blobs.store(Self.png(100), for: BlobKey(bucket: "1024", identifier: "p"))
        let index = try FileManager.default.attributesOfItem(atPath: dir.url.appendingPathComponent("index.sqlite").path)[.posixPermissions] as? Int
        let bucket = try FileManager.default.attributesOfItem(atPath: dir.url.appendingPathComponent("1024").path)[.posixPermissions] as? Int
        #expect(index == 0o600)
        #expect(bucket == 0o700)
    }

    @Test("the memory LRU in front of the disk: a second read in one process reads no file; the least recently read leaves memory first")
    func memoryInFront() throws {
        let dir = TemporaryDirectory()
        let keys = (0..<3).map { BlobKey(bucket: "1024", identifier: "album-\($0)") }
        // Written by another process: this one's memory starts empty.
        let writer = try cache(dir)
        for (index, key) in keys.enumerated() { try writer.store(Self.png(400, seed: UInt8(index)), for: key) }

        // Room for two blobs in memory (a third trims it to three quarters: the oldest goes).
        let reader = try cache(dir, memory: 1100)
        for key in keys.prefix(2) { _ = try reader.data(for: key) }
        // The files are gone behind the cache's back: what it answers now comes from memory.
        for key in keys { try FileManager.default.removeItem(at: reader.fileURL(for: key)) }
        #expect(try reader.data(for: keys[0]) == Self.png(400, seed: 0))
        #expect(try reader.data(for: keys[1]) == Self.png(400, seed: 1))
        // keys[2] was never read here: its file is needed, and missing.
        #expect(try reader.data(for: keys[2]) == nil)

        // Read order now 0, 1: a third blob in memory pushes out 0, the least recently read.
        let third = BlobKey(bucket: "1024", identifier: "album-3")
        try reader.store(Self.png(400, seed: 3), for: third)
        try FileManager.default.removeItem(at: reader.fileURL(for: third))
        #expect(try reader.data(for: third) == Self.png(400, seed: 3))
        #expect(try reader.data(for: keys[1]) == Self.png(400, seed: 1))
        #expect(try reader.data(for: keys[0]) == nil, "evicted from memory, and its file is gone")
        // A process without a memory copy reads the disk: nothing there now.
        #expect(try cache(dir).data(for: keys[1]) == nil)
    }
}

@Suite("Image formats by their magic bytes")
struct ImageFormatTests {
    @Test("PNG, JPEG, GIF and WebP are told by their first bytes; anything else is no image")
    func sniffing() {
        #expect(ImageFormat(sniffing: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])) == .png)
        #expect(ImageFormat(sniffing: Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10])) == .jpeg)
        #expect(ImageFormat(sniffing: Data("GIF89a....".utf8)) == .gif)
        #expect(ImageFormat(sniffing: Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(ImageFormat(sniffing: Data([0x89, 0x50, 0x4E, 0x47])) == nil, "a truncated PNG signature")
        #expect(ImageFormat(sniffing: Data("<html>".utf8)) == nil)
        #expect(ImageFormat(sniffing: Data()) == nil)
    }

    @Test("a written file gets the extension of what it is: a wrong image extension is replaced, a missing one added, any other kept")
    func fittingPath() {
        #expect(ImageFormat.jpeg.fittingPath("cover.png") == "cover.jpg")
        #expect(ImageFormat.jpeg.fittingPath("cover.JPEG") == "cover.JPEG")
        #expect(ImageFormat.jpeg.fittingPath("out/cover") == "out/cover.jpg")
        #expect(ImageFormat.png.fittingPath("a.b/cover.jpg") == "a.b/cover.png")
        #expect(ImageFormat.png.fittingPath("cover.bin") == "cover.bin", "not an image extension: the user's choice")
        #expect(ImageFormat(fileExtension: "JPE") == .jpeg)
        #expect(ImageFormat.jpeg.fittingPath("covers.png/") == "covers.png/", "a folder: left to the caller")
    }
}
