import BradOSCore
import BradOSNetworking
import Foundation

/// The Plex Media Server endpoints the library uses.
public protocol PlexAPI: Sendable {
    func sections() async throws -> [PlexSection]
    /// Every album of a section, page by page; `progress(loaded, total)` after each page.
    func albums(section: String, progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> [Album]
    /// The albums of a section updated after `time` (`updatedAt>>=`; every album for `nil`),
    /// and the newest `updatedAt` among them.
    func albums(section: String, updatedAfter time: Int?, progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> AlbumChanges
    /// How many albums of a section were added in `range` (a page of size 0: only `totalSize`).
    func albumCount(section: String, addedIn range: KeyRange<Int>) async throws -> Int
    /// The albums of a section added in `range`.
    func albums(section: String, addedIn range: KeyRange<Int>) async throws -> [Album]
    func collections(section: String) async throws -> [PlexCollection]
    func collectionAlbums(_ ratingKey: String) async throws -> [Album]
    func album(_ ratingKey: String) async throws -> AlbumDetail
    /// The artwork at `path`, transcoded to `size` px.
    func artwork(path: String, size: Int) async throws -> Data
    /// Where the server's notifications are (`/:/websockets/notifications`) and the headers
    /// that open it; `nil` when this connection has none.
    func notificationSocket() async throws -> (url: URL, headers: [(name: String, value: String)])?
}

extension PlexAPI {
    /// None.
    public func notificationSocket() async throws -> (url: URL, headers: [(name: String, value: String)])? { nil }
}

/// ``PlexAPI`` over the core ``APIClient``: `X-Plex-Token`, client identification headers,
/// JSON, paging with `X-Plex-Container-Start/Size`.
public struct PlexRESTClient: PlexAPI {
    /// Items per page: 100 by default.
    public var pageSize: Int
    let client: APIClient

    public init(client: APIClient, pageSize: Int = 100) {
        self.client = client
        self.pageSize = pageSize
    }

    /// How brados identifies itself to Plex.
    public static func identificationHeaders(clientIdentifier: String) -> [(name: String, value: String)] {
        [("X-Plex-Client-Identifier", clientIdentifier), ("X-Plex-Product", "brados"), ("X-Plex-Version", BradOSVersion.current),
         ("X-Plex-Platform", "Linux"), ("X-Plex-Device-Name", "brados")]
    }

    /// Plex takes its token in `X-Plex-Token`.
    public static let authScheme = AuthScheme { [("X-Plex-Token", $0)] }

    public func sections() async throws -> [PlexSection] {
        try await client.decode(MediaContainerEnvelope<PlexSection>.self, .get("/library/sections")).MediaContainer.items
    }

    public func albums(section: String, progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> [Album] {
        try await albums(section: section, updatedAfter: nil, progress: progress).albums
    }

    /// Plex's date filter `updatedAt>>=SECONDS` ("after"), as python-plexapi's
    /// `LibrarySection.search(filters={"updatedAt>>": …})` sends it.
    public func albums(section: String, updatedAfter time: Int?, progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> AlbumChanges {
        let filter = time.map { [("updatedAt>>", "\($0)")] } ?? []
        let listing = try await answers("/library/sections/\(PathComponent.escape(section))/all", query: [("type", "9")] + filter, progress: progress)
        return AlbumChanges(albums: listing.items.map(\.album), newestUpdate: listing.items.compactMap(\.updatedAt).max(),
                            inOneAnswer: listing.items.count < pageSize, serverTime: listing.serverTime)
    }

    public func albumCount(section: String, addedIn range: KeyRange<Int>) async throws -> Int {
        var request = APIRequest.get("/library/sections/\(PathComponent.escape(section))/all", query: [("type", "9")] + Self.filters(range))
        request.headers = [("X-Plex-Container-Start", "0"), ("X-Plex-Container-Size", "0")]
        let container = try await client.decode(MediaContainerEnvelope<PlexMetadata>.self, request).MediaContainer
        guard let total = container.totalSize else {
            throw NetworkError.undecodable(path: request.path, MissingTotal())
        }
        return total
    }

    public func albums(section: String, addedIn range: KeyRange<Int>) async throws -> [Album] {
        try await pages("/library/sections/\(PathComponent.escape(section))/all", query: [("type", "9")] + Self.filters(range), progress: { _, _ in }).map(\.album)
    }

    /// Plex's date filters for `[lower, upper)`: `addedAt>>=` is strictly after, `addedAt<<=` strictly before.
    static func filters(_ range: KeyRange<Int>) -> [(name: String, value: String)] {
        (range.lower.map { [("addedAt>>", "\($0 - 1)")] } ?? []) + (range.upper.map { [("addedAt<<", "\($0)")] } ?? [])
    }

    public func collections(section: String) async throws -> [PlexCollection] {
        try await pages("/library/sections/\(PathComponent.escape(section))/collections", query: [], progress: { _, _ in }).map {
            PlexCollection(ratingKey: $0.ratingKey, title: $0.title, childCount: $0.childCount?.value ?? $0.leafCount ?? 0,
                           thumb: $0.thumb.flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    public func collectionAlbums(_ ratingKey: String) async throws -> [Album] {
        try await pages("/library/collections/\(PathComponent.escape(ratingKey))/children", query: [], progress: { _, _ in }).map(\.album)
    }

    public func album(_ ratingKey: String) async throws -> AlbumDetail {
        let items = try await client.decode(MediaContainerEnvelope<PlexMetadata>.self, .get("/library/metadata/\(PathComponent.escape(ratingKey))"))
            .MediaContainer.items
        guard let item = items.first else { throw NetworkError.http(status: 404, method: "GET", path: "/library/metadata/\(ratingKey)", message: nil, retryAfter: nil) }
        if item.type == "collection" {
            return AlbumDetail(collection: PlexCollection(ratingKey: item.ratingKey, title: item.title, childCount: item.childCount?.value ?? item.leafCount ?? 0,
                                                          thumb: item.thumb.flatMap { $0.isEmpty ? nil : $0 }))
        }
        return AlbumDetail(album: item.album, summary: item.summary, studio: item.studio, genres: item.Genre?.map(\.tag) ?? [], trackCount: item.leafCount)
    }

    public func notificationSocket() async throws -> (url: URL, headers: [(name: String, value: String)])? {
        guard let authenticator = client.authenticator else { return nil }
        let token = try await authenticator.accessToken()
        return (APIRequest.get("/:/websockets/notifications").url(relativeTo: client.baseURL), client.defaultHeaders + client.authScheme.headers(token))
    }

    public func artwork(path: String, size: Int) async throws -> Data {
        var request = APIRequest.get("/photo/:/transcode", query: [
            ("width", "\(size)"), ("height", "\(size)"), ("minSize", "1"), ("upscale", "1"), ("url", path),
        ])
        request.headers = [("Accept", "image/png, image/jpeg, image/*")]
        request.responseLimit = ResponseLimit.image
        return try await client.send(request).body
    }

    /// Every item of a paged listing.
    func pages(_ path: String, query: [(name: String, value: String)], progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> [PlexMetadata] {
        try await answers(path, query: query, progress: progress).items
    }

    /// Every item of a paged listing, and the server's clock when it sent the first page.
    func answers(_ path: String, query: [(name: String, value: String)],
                 progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> (items: [PlexMetadata], serverTime: Int?) {
        var items: [PlexMetadata] = []
        var start = 0
        var serverTime: Int?
        while true {
            var request = APIRequest.get(path, query: query)
            request.headers = [("X-Plex-Container-Start", "\(start)"), ("X-Plex-Container-Size", "\(pageSize)")]
            let answer = try await client.decodeAnswer(MediaContainerEnvelope<PlexMetadata>.self, request)
            if start == 0 { serverTime = answer.response.serverTime }
            let container = answer.value.MediaContainer
            items += container.items
            let total = container.totalSize ?? container.size
            progress(items.count, total)
            start += container.items.count
            if container.items.isEmpty || container.totalSize == nil || start >= total ?? 0 { return (items, serverTime) }
        }
    }
}

/// Albums listed by a refresh, and the newest `updatedAt` among them (the next refresh's cursor).
public struct AlbumChanges: Sendable, Equatable {
    public var albums: [Album]
    public var newestUpdate: Int?
    /// Whether the listing came in one answer. Plex pages by offset in title order, so an
    /// album updated while a longer listing is read may be missed on a page already read:
    /// then the cursor must not move past it.
    public var inOneAnswer: Bool
    /// The server's clock (its `Date` header, whole seconds) when it sent the listing's first
    /// answer: every album updated before that second was there to be listed.
    public var serverTime: Int?

    public init(albums: [Album], newestUpdate: Int?, inOneAnswer: Bool = true, serverTime: Int? = nil) {
        self.albums = albums
        self.newestUpdate = newestUpdate
        self.inOneAnswer = inOneAnswer
        self.serverTime = serverTime
    }

    /// The last second every update of which this listing saw, when it says (the refresh's
    /// cursor, ``LibraryHeader/updatedThrough``): the second before the server's clock when it
    /// answered (an update in the second it answered in may still come), else the second
    /// before the newest update listed (that second is asked again); `nil` when neither is known.
    public var seenThrough: Int? { serverTime.map { $0 - 1 } ?? newestUpdate.map { $0 - 1 } }
}

/// A count asked for (a page of size 0) that the answer's `totalSize` does not carry.
struct MissingTotal: Error, CustomStringConvertible {
    var description: String { "the answer has no totalSize" }
}
