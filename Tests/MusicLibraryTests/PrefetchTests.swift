import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation
@testable import MusicLibrary
import TestSupport
import Testing

@Suite("Library: prefetching the first screen")
struct PrefetchTests {
    @Test("prefetch asks only for 1024 px, only the given albums, 4 at a time, skipping cached ones")
    func prefetch() async throws {
        let dir = TemporaryDirectory()
        let plex = FakePlex()
        let repository = try artworkStore(dir, plex)
        let albums = (1...10).map { makeAlbum("\($0)", thumb: $0 != 3) }
        _ = try await repository.artwork(for: albums[0], size: .list)
        let report = try await repository.prefetch(albums)
        #expect(report == PrefetchReport(requested: 9, fetched: 8, alreadyCached: 1, failed: 0, skippedWithoutArtwork: 1))
        let calls = plex.artworkCalls.value
        #expect(calls.count == 9)
        #expect(calls.allSatisfy { $0.hasPrefix("1024 ") })
        #expect(plex.maxInFlight.value <= 4)
    }

    @Test("prefetch that cannot fetch anything reports why (offline → exit 5)")
    func prefetchAllFail() async throws {
        let dir = TemporaryDirectory()
        let blobs = try BlobStore(directory: dir.url, configuration: BlobStoreConfiguration(memoryCapacity: 0))
        let repository = ArtworkCache(blobs: blobs, directory: dir.url, api: { throw NetworkError.offlineMode })
        do {
            _ = try await repository.prefetch([makeAlbum("1"), makeAlbum("2")])
            Issue.record("expected the offline error")
        } catch {
            #expect(ExitStatus.code(for: error) == 5)
        }
    }

    @Test("the first screen is the visible rows plus one, times the columns")
    func firstScreen() throws {
        let io = CapturingIO(environment: [:])
        #expect(try ScreenOptions.parse(["--rows", "3", "--columns", "2"]).firstScreen(io) == 8)
        #expect(try ScreenOptions.parse([]).firstScreen(io) == 22) // 24-row default, 3 header lines, plus one
    }
}
