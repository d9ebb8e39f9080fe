import BradOSCore
import BradOSStorage
import Foundation
import Synchronization
@testable import MusicLibrary
import TestSupport
import Testing

@Suite("Library: the artwork cache")
struct ArtworkCacheTests {
    @Test("cache keys are rating key + artwork path + size, one bucket per size")
    func keys() {
        let key = ArtworkCache.key(makeAlbum("42"), path: "/library/metadata/42/thumb/1", size: .detail)
        #expect(key == BlobKey(bucket: "2048", identifier: "42|/library/metadata/42/thumb/1|2048"))
    }

    @Test("a 404 remembered by a writer whose clock reads earlier is kept, not pruned; one past a day goes at the next write")
    func missingKeepsOthersEntries() throws {
        let dir = TemporaryDirectory()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = Mutex(start.addingTimeInterval(0.5))
        let missing = MissingArtwork(directory: dir.url, now: { clock.withLock { $0 } })
        missing.remember("b")  // a concurrent fetch that read the clock later wrote first
        clock.withLock { $0 = start }
        missing.remember("a")
        #expect(Set(missing.store.keys()) == ["a", "b"], "the entry from half a second on is another writer's, not stale")
        clock.withLock { $0 = start.addingTimeInterval(0.5) }
        #expect(missing.isMissing("a") && missing.isMissing("b"))
        clock.withLock { $0 = start.addingTimeInterval(MissingArtwork.lifetime + 10) }
        #expect(!missing.isMissing("a"))
        missing.remember("c")
        #expect(missing.store.keys() == ["c"], "entries past the lifetime are dropped by a write")
    }

    @Test("a corrupt cached image is discarded and fetched again")
    func corruptRefetch() async throws {
        let dir = TemporaryDirectory()
        let plex = FakePlex()
        let repository = try artworkStore(dir, plex)
        let item = makeAlbum("7")
        _ = try await repository.artwork(for: item, size: .list)
        try Data("garbage".utf8).write(to: try repository.file(for: item, size: .list))
        let again = try await artworkStore(dir, plex).artwork(for: item, size: .list)
        #expect(again.cached == false)
        #expect(plex.artworkCalls.value.count == 2)
        #expect(again.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test("two servers' albums with the same rating key and path never share a cached image; each server's stays")
    func artworkPerServer() async throws {
        let dir = TemporaryDirectory()
        let plex = FakePlex()
        let blobs = try BlobStore(directory: dir.url, configuration: BlobStoreConfiguration(memoryCapacity: 0))
        let server = Locked<String?>("machine-a")
        let repository = ArtworkCache(blobs: blobs, directory: dir.url, origin: { server.value }, api: { plex })
        let item = makeAlbum("7")
        #expect(try await repository.artwork(for: item, size: .list).cached == false)
        let fileA = try repository.file(for: item, size: .list)
        server.withLock { $0 = "machine-b" }
        #expect(try await repository.artwork(for: item, size: .list).cached == false, "server b's image is fetched")
        #expect(try repository.file(for: item, size: .list) != fileA)
        server.withLock { $0 = "machine-a" }
        #expect(try await repository.artwork(for: item, size: .list).cached == true, "server a's is still cached")
        #expect(plex.artworkCalls.value.count == 2)
    }

    @Test("a cover the server answers 404 for is the placeholder, not asked for again until its thumb changes or a day has passed")
    func missingCoverRemembered() async throws {
        let dir = TemporaryDirectory()
        let plex = FakePlex()
        let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let blobs = try BlobStore(directory: dir.url, configuration: BlobStoreConfiguration(memoryCapacity: 0))
        let repository = ArtworkCache(blobs: blobs, directory: dir.url, now: { clock.value }, api: { plex })
        let album = makeAlbum("5")
        plex.missing.withLock { $0.insert(album.thumb!) }
        let first = try await repository.artwork(for: album, size: .list)
        #expect(first.placeholder && first.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // Every later load (a prefetch after each refresh, the other size, a new process) asks nothing.
        let report = try await repository.prefetch([album, album])
        #expect(report.failed == 0 && report.fetched == 0)
        #expect(try await repository.artwork(for: album, size: .detail).placeholder)
        let reopened = ArtworkCache(blobs: blobs, directory: dir.url, now: { clock.value }, api: { plex })
        #expect(try await reopened.artwork(for: album, size: .list).placeholder)
        #expect(FileManager.default.fileExists(atPath: try reopened.file(for: album, size: .list).path))
        #expect(plex.artworkCalls.value.count == 1)
        // A new thumb is another cover: asked for (and found).
        var changed = album
        changed.thumb = "/library/metadata/5/thumb/2"
        #expect(try await repository.artwork(for: changed, size: .list).placeholder == false)
        #expect(plex.artworkCalls.value.count == 2)
        // A day later the old one is asked for again; the server has it by now.
        plex.missing.withLock { $0 = [] }
        clock.withLock { $0 = $0.addingTimeInterval(86_401) }
        #expect(try await repository.artwork(for: album, size: .list).placeholder == false)
        #expect(plex.artworkCalls.value.count == 3)
    }

    @Test("an album without artwork gets the placeholder, with no request and no error")
    func placeholder() async throws {
        let dir = TemporaryDirectory()
        let plex = FakePlex()
        let repository = try artworkStore(dir, plex)
        let result = try await repository.artwork(for: makeAlbum("9", thumb: false), size: .detail)
        #expect(result.placeholder)
        #expect(result.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(plex.artworkCalls.value.isEmpty)
        #expect(FileManager.default.fileExists(atPath: try repository.file(for: makeAlbum("9", thumb: false), size: .detail).path))
    }
}
