import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation
import Logging

/// Album and collection artwork at two sizes, 1024 px (lists, grids) and 2048 px (detail), through the
/// core ``BlobStore`` (memory + disk, LRU by last access over both sizes, capped).
/// An album or collection without artwork gets the placeholder, never an error; so does one
/// whose cover the server answered 404 for (remembered: ``MissingArtwork``).
public struct ArtworkCache: Sendable {
    public enum Size: Int, Sendable, CaseIterable {
        case list = 1024
        case detail = 2048

    }

    public let blobs: any BlobStoring
    let blobDirectory: URL
    let api: @Sendable () async throws -> any PlexAPI
    let logger: Logger
    /// The media server the images come from (see ``LibraryRepository/origin``): two servers'
    /// albums can share rating keys and paths, never cache entries.
    let origin: @Sendable () -> String?
    let missing: MissingArtwork

    public init(blobs: any BlobStoring, directory: URL, logger: Logger = Logger(label: "brados.library"),
                origin: @escaping @Sendable () -> String? = { nil }, now: @escaping @Sendable () -> Date = Date.init,
                api: @escaping @Sendable () async throws -> any PlexAPI) {
        self.blobs = blobs
        blobDirectory = directory
        self.api = api
        self.logger = logger
        self.origin = origin
        missing = MissingArtwork(directory: directory, now: now)
    }

    /// The image an item's artwork path names on a server (`origin|ratingKey|path`): a cache
    /// key adds the size; a 404 is remembered by it alone (every size).
    static func identity(_ album: some ArtworkItem, path: String, origin: String?) -> String {
        (origin.map { "\($0)|" } ?? "") + "\(album.ratingKey)|\(path)"
    }

    func missingKey(_ album: some ArtworkItem, path: String) -> String { Self.identity(album, path: path, origin: origin()) }

    /// The cache key: server (when known) + rating key + artwork path + size.
    public static func key(_ album: some ArtworkItem, path: String, size: Size, origin: String? = nil) -> BlobKey {
        BlobKey(bucket: "\(size.rawValue)", identifier: identity(album, path: path, origin: origin) + "|\(size.rawValue)")
    }

    func key(_ album: some ArtworkItem, path: String, size: Size) -> BlobKey { Self.key(album, path: path, size: size, origin: origin()) }

    /// The artwork, from the cache or else fetched and cached; the placeholder when the album has none.
    /// - Throws: ``NetworkError`` (offline, server), ``StorageError``.
    public func artwork(for album: some ArtworkItem, size: Size) async throws -> (data: Data, cached: Bool, placeholder: Bool) {
        guard let path = album.thumb else { return (Placeholder.png, true, true) }
        if let data = try blobs.data(for: key(album, path: path, size: size)) { return (data, true, false) }
        if missing.isMissing(missingKey(album, path: path)) { return (Placeholder.png, true, true) }
        let api = try await api()
        // Connecting may have chosen the server just now (the account's only one): the key is its.
        let key = key(album, path: path, size: size)
        if let data = try blobs.data(for: key) { return (data, true, false) }
        if missing.isMissing(missingKey(album, path: path)) { return (Placeholder.png, true, true) }
        let data: Data
        do { data = try await api.artwork(path: path, size: size.rawValue) } catch let error as NetworkError where error.kind == .notFound {
            // The server has no such cover: the placeholder stands for it, and it is not asked for
            // again until its thumb changes or a day has passed.
            missing.remember(missingKey(album, path: path))
            return (Placeholder.png, false, true)
        }
        do {
            try blobs.store(data, for: key)
        } catch let error as StorageError {
            if case .coding = error {
                throw NetworkError.invalidResponse(path: "/photo/:/transcode", detail: "the server did not send an image")
            }
            throw error
        }
        return (data, false, false)
    }

    /// Whether the artwork is cached (nothing is read; see ``BlobStoring/contains(_:)``).
    public func isCached(_ album: some ArtworkItem, size: Size) -> Bool {
        guard let path = album.thumb else { return true }
        return blobs.contains(key(album, path: path, size: size))
    }

    /// Whether loading the artwork would ask the server: it is neither cached nor known missing.
    public func wouldFetch(_ item: some ArtworkItem, size: Size) -> Bool {
        guard let path = item.thumb else { return false }
        return !blobs.contains(key(item, path: path, size: size)) && !missing.isMissing(missingKey(item, path: path))
    }

    /// The artwork if it is cached (never fetched); `nil` otherwise.
    public func cached(_ album: some ArtworkItem, size: Size) -> Data? {
        guard let path = album.thumb else { return nil }
        return try? blobs.data(for: key(album, path: path, size: size))
    }

    /// Drops an album's cached artwork that does not decode, so the next read fetches it again.
    public func discard(_ album: some ArtworkItem, size: Size) {
        guard let path = album.thumb else { return }
        do { try blobs.remove(key(album, path: path, size: size)) } catch {
            logger.debug("could not drop undecodable artwork", metadata: ["album": "\(album.ratingKey)", "error": "\(error.logText)"])
        }
    }

    /// The file holding an album's cached artwork (after ``artwork(for:size:)``), or the placeholder file.
    public func file(for album: some ArtworkItem, size: Size) throws -> URL {
        guard let path = album.thumb, !missing.isMissing(missingKey(album, path: path)) else {
            let url = blobDirectory.appendingPathComponent("placeholder.png")
            if !FileManager.default.fileExists(atPath: url.path) { try AtomicFile.write(Placeholder.png, to: url, durable: false) }
            return url
        }
        return blobs.fileURL(for: key(album, path: path, size: size))
    }

    /// Fetches the 1024 px artwork of `albums` (or collections) that is not cached yet, at most `concurrency`
    /// at a time; `progress(done, total)` after each. Individual failures are counted.
    /// - Throws: the first error when every fetch failed (offline, signed out, server down).
    public func prefetch(_ albums: [any ArtworkItem], concurrency: Int = 4, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> PrefetchReport {
        let wanted = albums.filter { $0.thumb != nil }
        var report = PrefetchReport(requested: wanted.count, fetched: 0, alreadyCached: 0, failed: 0, skippedWithoutArtwork: albums.count - wanted.count)
        var firstError: (any Error)?
        await withTaskGroup(of: (fetched: Bool, error: (any Error)?).self) { group in
            var next = 0
            func schedule() {
                guard next < wanted.count else { return }
                let album = wanted[next]
                next += 1
                group.addTask {
                    do {
                        let result = try await artwork(for: album, size: .list)
                        return (!result.cached && !result.placeholder, nil)
                    } catch {
                        logger.debug("prefetch failed", metadata: ["album": "\(album.ratingKey)", "error": "\(error.logText)"])
                        return (false, error)
                    }
                }
            }
            for _ in 0..<max(1, concurrency) { schedule() }
            var done = 0
            for await result in group {
                done += 1
                if let error = result.error {
                    report.failed += 1
                    firstError = firstError ?? error
                } else if result.fetched { report.fetched += 1 } else { report.alreadyCached += 1 }
                progress(done, wanted.count)
                schedule()
            }
        }
        if let firstError, report.failed == report.requested { throw firstError }
        return report
    }
}

public struct PrefetchReport: Codable, Sendable, Equatable {
    public var requested: Int
    public var fetched: Int
    public var alreadyCached: Int
    public var failed: Int
    public var skippedWithoutArtwork: Int
}

/// The image shown for albums without artwork: a 1×1 grey PNG.
enum Placeholder {
    static let png = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3A, 0x7E, 0x9B,
        0x55, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x68, 0x00, 0x00, 0x00,
        0x82, 0x00, 0x81, 0x77, 0xCD, 0x72, 0xB6, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
        0x42, 0x60, 0x82,
    ])
}
