import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation
@testable import MusicLibrary
import TestSupport
import Testing

func makeAlbum(_ key: String, thumb: Bool = true, title: String? = nil, year: Int = 2000) -> Album {
    Album(ratingKey: key, title: title ?? "Album \(key)", artist: "Artist", year: year,
          thumb: thumb ? "/library/metadata/\(key)/thumb/1" : nil, art: nil, addedAt: 1)
}

/// A fake PNG whose bytes depend on the request.
func png(_ seed: String, size: Int = 2000) -> Data {
    var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    data.append(contentsOf: (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ seed.hashValue) })
    return data
}

/// A ``PlexAPI`` double that records artwork requests.
final class FakePlex: PlexAPI {
    let artworkCalls = Locked<[String]>([])
    /// Artwork paths the server answers 404 for.
    let missing = Locked<Set<String>>([])
    let inFlight = Locked(0)
    let maxInFlight = Locked(0)
    func sections() async throws -> [PlexSection] { [PlexSection(key: "1", type: "artist", title: "Music")] }
    func albums(section: String, progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> [Album] { [] }
    func albums(section: String, updatedAfter time: Int?, progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> AlbumChanges {
        AlbumChanges(albums: [], newestUpdate: nil)
    }
    func albumCount(section: String, addedIn range: KeyRange<Int>) async throws -> Int { 0 }
    func albums(section: String, addedIn range: KeyRange<Int>) async throws -> [Album] { [] }
    func collections(section: String) async throws -> [PlexCollection] { [] }
    func collectionAlbums(_ ratingKey: String) async throws -> [Album] { [] }
    func album(_ ratingKey: String) async throws -> AlbumDetail { AlbumDetail(album: makeAlbum(ratingKey), summary: nil, studio: nil, genres: [], trackCount: nil) }
    func artwork(path: String, size: Int) async throws -> Data {
        artworkCalls.withLock { $0.append("\(size) \(path)") }
        if missing.value.contains(path) {
            throw NetworkError.http(status: 404, method: "GET", path: "/photo/:/transcode", message: nil, retryAfter: nil)
        }
        let now = inFlight.withLock { value in value += 1; return value }
        maxInFlight.withLock { $0 = max($0, now) }
        await Task.yield()
        inFlight.withLock { $0 -= 1 }
        return png(path + "\(size)")
    }
}

struct StaticToken: Authenticating {
    func accessToken() async throws -> String { "plex-token" }
    func renewToken(replacing rejected: String) async throws -> String { throw AuthError.sessionExpired(profile: "default") }
    func sessionExpired(profile: String) -> any Error { AuthError.sessionExpired(profile: profile) }
}

/// An artwork store over a disk-only blob cache in `dir`, asking `plex`.
func artworkStore(_ dir: TemporaryDirectory, _ plex: FakePlex) throws -> ArtworkCache {
    let blobs = try BlobStore(directory: dir.url, configuration: BlobStoreConfiguration(memoryCapacity: 0))
    return ArtworkCache(blobs: blobs, directory: dir.url, api: { plex })
}
