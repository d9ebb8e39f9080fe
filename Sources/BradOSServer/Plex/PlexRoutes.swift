import Foundation
import Hummingbird
import Synchronization

/// A Plex Media Server's music library, as real servers answer: `X-Plex-Token` (header or
/// query), XML by default and JSON on request, paging with `X-Plex-Container-Start/Size`
/// (header or query) answered with `offset`, `size` and `totalSize`.
struct PlexRoutes {
    let library: PlexLibrary
    /// The library as it is now (each access takes a fresh copy; a change between two
    /// accesses of one handler can show, which the test server's callers accept).
    var catalogue: PlexCatalogue { library.current }
    let database: ServerDatabase
    /// Which server this is (name, machine identifier, owner) and the plex.tv tokens it takes.
    let server: PlexServerIdentity
    let plexTV: PlexTVRoutes
    /// Albums with every field a real server sends (``ServerConfiguration/plexRealAlbums``).
    var realAlbums = false
    let artworkCache = ArtworkMemo()

    static let version = "1.40.2.8395-c67dce28e"

    /// The routes; each handler below answers one of them. Every route but `/identity` needs a token.
    func register<Context: RequestContext>(on router: some RouterMethods<Context>) {
        router.get("/identity") { request, _ in try identity().response(for: request) }
        router.get("/") { request, _ in try authenticated(request) { try serverInfo().response(for: request) } }
        router.get("/library") { request, _ in try authenticated(request) { try libraryRoot().response(for: request) } }
        router.get("/library/sections") { request, _ in try authenticated(request) { try sections().response(for: request) } }
        router.get("/library/sections/{section}/all") { request, context in
            try authenticated(request, section: context) {
                try sectionListing(type: request.uri.queryParameters.get("type") ?? "9", section: context.parameters.get("section"), request: request)
            }
        }
        router.get("/library/sections/{section}/albums") { request, context in
            try authenticated(request, section: context) { try albums(albums(inSection: context.parameters.get("section")), request: request) }
        }
        router.get("/library/sections/{section}/collections") { request, context in
            try authenticated(request, section: context) { try collections(section: context.parameters.get("section"), request: request) }
        }
        router.get("/library/collections/{key}/children") { request, context in
            try authenticated(request) { try collectionChildren(key: try context.parameters.require("key"), request: request) }
        }
        router.get("/library/metadata/{key}") { request, context in
            try authenticated(request) { try metadata(key: try context.parameters.require("key")).response(for: request) }
        }
        // The artwork paths themselves (what clients such as python-plexapi's thumbUrl fetch).
        for kind in ["thumb", "art"] {
            router.get("/library/metadata/{key}/\(kind)/{version}") { request, context in
                try authenticated(request) { try artwork(path: request.uri.path) }
            }
        }
        router.get("/library/collections/{key}/composite/{version}") { request, context in
            try authenticated(request) { try artwork(path: request.uri.path) }
        }
        router.get("/photo/{colon}/transcode") { request, context in
            try authenticated(request) {
                guard context.parameters.get("colon") == ":" else { throw HTTPError(.notFound) }
                return try transcode(request)
            }
        }
    }

    func authenticated(_ request: Request, _ answer: () throws -> Response) throws -> Response {
        try authenticate(request)
        return try answer()
    }

    func authenticated<Context: RequestContext>(_ request: Request, section context: Context, _ answer: () throws -> Response) throws -> Response {
        try authenticate(request)
        guard let key = context.parameters.get("section"), Self.sections.contains(where: { $0.key == key }) else { throw HTTPError(.notFound) }
        return try answer()
    }

    // MARK: Handlers

    func identity() -> MediaContainer {
        MediaContainer(attributes: [("size", 0), ("claimed", true), ("machineIdentifier", server.machineIdentifier), ("version", Self.version)])
    }

    func serverInfo() -> MediaContainer {
        MediaContainer(attributes: [
            ("size", 0), ("friendlyName", server.name), ("machineIdentifier", server.machineIdentifier),
            ("version", Self.version), ("platform", "Linux"), ("platformVersion", "6.1"), ("myPlex", true),
            ("myPlexUsername", server.owner), ("myPlexSigninState", "ok"),
            ("transcoderAudio", true), ("transcoderVideo", false), ("updatedAt", 1_700_000_000),
        ])
    }

    func libraryRoot() -> MediaContainer {
        let directories = [("sections", "Library Sections"), ("recentlyAdded", "Recently Added Content"), ("onDeck", "On Deck Content")]
        return MediaContainer(attributes: [("size", directories.count), ("allowSync", false), ("title1", "Plex Library")],
                              elements: directories.map { .init(jsonKey: "Directory", xmlTag: "Directory", attributes: [("key", $0.0), ("title", $0.1)]) })
    }

    /// The library's sections, as on a real server with more than music: the main music
    /// library, a second, smaller one (the live recordings of every sixth album), and movies.
    static let sections: [(key: String, type: String, title: String)] = [("1", "artist", "Music"), ("2", "artist", "Live Recordings"), ("3", "movie", "Movies")]

    /// A section's albums (none in the movie section).
    func albums(inSection key: String?) -> [PlexCatalogue.Album] {
        switch key {
        case catalogue.sectionKey: catalogue.albums
        case "2": catalogue.albums.enumerated().filter { $0.offset % 6 == 0 }.map(\.element)
        default: []
        }
    }

    func sections() -> MediaContainer {
        let elements = Self.sections.enumerated().map { index, section in
            MediaContainer.Element(jsonKey: "Directory", xmlTag: "Directory", attributes: [
                ("allowSync", false), ("art", "/:/resources/\(section.type)-fanart.jpg"), ("key", section.key), ("type", section.type),
                ("title", section.title), ("agent", section.type == "artist" ? "tv.plex.agents.music" : "tv.plex.agents.movie"),
                ("scanner", section.type == "artist" ? "Plex Music" : "Plex Movie"), ("language", "en-US"),
                ("uuid", index == 0 ? catalogue.sectionUUID : String(catalogue.sectionUUID.dropLast()) + "\(index)"),
                ("updatedAt", 1_700_000_000), ("createdAt", 1_600_000_000),
                // Moves whenever the section's content changes: a client that saw this value has nothing to fetch.
                ("contentChangedAt", section.type == "artist" ? catalogue.contentChangedAt : 1_600_000_000),
            ])
        }
        return MediaContainer(attributes: [("size", elements.count), ("allowSync", false), ("title1", "Plex Library")], elements: elements)
    }

    /// `/all?type=`: 9 albums (what brados asks), 18 collections, anything else artists (8, the default listing).
    func sectionListing(type: String, section: String?, request: Request) throws -> Response {
        switch type {
        case "9": return try albums(albums(inSection: section), request: request)
        case "18": return try collections(section: section, request: request)
        default:
            let artists = Dictionary(grouping: albums(inSection: section), by: \.artistKey).values.compactMap(\.first).sorted { $0.artist < $1.artist }
            return try page(artists, request: request, container: [("librarySectionID", 1), ("viewGroup", "artist")]) { album in
                .init(jsonKey: "Metadata", xmlTag: "Directory", attributes: [
                    ("ratingKey", album.artistKey), ("key", "/library/metadata/\(album.artistKey)/children"), ("type", "artist"), ("title", album.artist),
                ])
            }
        }
    }

    /// Albums, filtered as Plex filters a listing by date: `updatedAt>>=T` and `addedAt>>=T`
    /// (after T, in Unix seconds), `updatedAt<<=T` and `addedAt<<=T` (before T), as
    /// python-plexapi's search builds them (`Library.search(filters={"updatedAt>>": …})`).
    func albums(_ albums: [PlexCatalogue.Album], request: Request) throws -> Response {
        var albums = albums
        for (rawKey, rawValue) in request.uri.queryParameters {
            let key = String(rawKey).removingPercentEncoding ?? String(rawKey)
            guard let field = ["updatedAt", "addedAt"].first(where: { key.hasPrefix($0) }) else { continue }
            let op = key.dropFirst(field.count)
            guard let bound = Int(String(rawValue)), op == ">>" || op == "<<" else {
                throw HTTPError(.badRequest, message: "\(key)=\(rawValue): a date filter is \(field)>>=SECONDS or \(field)<<=SECONDS.")
            }
            albums = albums.filter { album in
                let value = field == "updatedAt" ? album.updatedAt : album.addedAt
                return op == ">>" ? value > bound : value < bound
            }
        }
        return try page(albums, request: request, container: [("librarySectionID", 1), ("viewGroup", "album")], element: albumElement)
    }

    /// The collections: all in the main music section, none elsewhere.
    func collections(section: String?, request: Request) throws -> Response {
        try page(section == catalogue.sectionKey ? catalogue.collections : [], request: request, container: [("librarySectionID", 1)], element: collectionElement)
    }

    func collectionChildren(key: String, request: Request) throws -> Response {
        guard let collection = catalogue.collection(key) else { throw HTTPError(.notFound) }
        let albums = collection.albumKeys.compactMap { catalogue.albumsByKey[$0] }
        return try page(albums, request: request, container: [("title1", collection.title)], element: albumElement)
    }

    func metadata(key: String) throws -> MediaContainer {
        if let collection = catalogue.collection(key) {
            return MediaContainer(attributes: [("size", 1)], elements: [collectionElement(collection)])
        }
        guard let album = catalogue.albumsByKey[key] else { throw HTTPError(.notFound) }
        var element = albumElement(album)
        element.attributes += [("summary", "\(album.title) by \(album.artist), \(album.year)."), ("studio", album.studio)]
        element.children = [.init(jsonKey: "Genre", xmlTag: "Genre", attributes: [("tag", album.genre)])]
        return MediaContainer(attributes: [("size", 1)], elements: [element])
    }

    /// An artwork path itself (an album's thumb or art, a collection's composite), as PNG at 1024 px.
    func artwork(path: String) throws -> Response {
        guard let subject = catalogue.subject(forArtworkPath: path) else { throw HTTPError(.notFound) }
        let image = artworkCache.image(key: "\(subject.ratingKey)/1024") { catalogue.artwork(for: subject, size: 1024) }
        return Response(status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: ByteBuffer(bytes: image)))
    }

    /// `/photo/:/transcode?width=&height=&url=`: the artwork at the larger of the two sizes.
    func transcode(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        guard let width = query.get("width").flatMap(Int.init), let height = query.get("height").flatMap(Int.init),
              (16...4096).contains(width), (16...4096).contains(height), let url = query.get("url")
        else { throw HTTPError(.badRequest, message: "width, height (16-4096) and url are required.") }
        let path = url.removingPercentEncoding ?? url
        guard let album = catalogue.subject(forArtworkPath: path) else { throw HTTPError(.notFound) }
        let size = max(width, height)
        // JPEG unless `format=png` asks otherwise, as Plex's transcoder answers.
        let format: PlexCatalogue.ImageFormat
        switch query.get("format")?.lowercased() {
        case nil, "jpg", "jpeg": format = .jpeg
        case "png": format = .png
        default: throw HTTPError(.badRequest, message: "format is jpeg or png.")
        }
        let image = artworkCache.image(key: "\(album.ratingKey)/\(size)/\(format.rawValue)") { catalogue.artwork(for: album, size: size, format: format) }
        return Response(status: .ok, headers: [.contentType: format.contentType, .cacheControl: "max-age=86400"],
                        body: .init(byteBuffer: ByteBuffer(bytes: image)))
    }

    func collectionElement(_ collection: PlexCatalogue.Collection) -> MediaContainer.Element {
        .init(jsonKey: "Metadata", xmlTag: "Directory", attributes: [
            ("ratingKey", collection.ratingKey), ("key", "/library/collections/\(collection.ratingKey)/children"),
            ("type", "collection"), ("subtype", "album"), ("title", collection.title),
            ("childCount", "\(collection.albumKeys.count)"), ("thumb", collection.thumb ?? ""), ("librarySectionID", 1),
        ])
    }

    func albumElement(_ album: PlexCatalogue.Album) -> MediaContainer.Element {
        var attributes: [(String, Any)] = [
            ("ratingKey", album.ratingKey), ("key", "/library/metadata/\(album.ratingKey)/children"),
            ("parentRatingKey", album.artistKey), ("type", "album"), ("title", album.title), ("parentTitle", album.artist),
            ("year", album.year), ("addedAt", album.addedAt), ("updatedAt", album.updatedAt), ("leafCount", album.trackCount), ("librarySectionID", 1),
        ]
        if let thumb = album.thumb { attributes.append(("thumb", thumb)) }
        if let art = album.art { attributes.append(("art", art)) }
        var children: [MediaContainer.Element] = []
        if realAlbums {
            // The rest of what a Plex Media Server 1.40 sends for an album in a listing (about 650 bytes in JSON).
            let hash = UInt64(album.ratingKey) ?? 0
            attributes += [
                ("guid", "plex://album/5d07\(String(format: "%020llx", hash &* 0x9E37_79B9_7F4A_7C15))"),
                ("parentGuid", "plex://artist/5d07bbfc\(String(format: "%016llx", (UInt64(album.artistKey) ?? 0) &* 0xBF58_476D_1CE4_E5B9))"),
                ("studio", album.studio), ("parentKey", "/library/metadata/\(album.artistKey)"),
                ("summary", "\(album.trackCount) tracks of \(album.genre.lowercased())."),
                ("index", 1), ("viewCount", Int(hash % 23)), ("lastViewedAt", album.updatedAt + Int(hash % 86400)),
                ("parentThumb", "/library/metadata/\(album.artistKey)/thumb/\(album.addedAt)"),
                ("originallyAvailableAt", "\(album.year)-0\(1 + hash % 9)-1\(hash % 10)"),
                ("loudnessAnalysisVersion", "2"), ("librarySectionTitle", "Music"),
            ]
            children = [.init(jsonKey: "Genre", xmlTag: "Genre", attributes: [("tag", album.genre)])]
        }
        return MediaContainer.Element(jsonKey: "Metadata", xmlTag: "Directory", attributes: attributes, children: children)
    }

    /// One page of `items`, from `X-Plex-Container-Start/Size` (header or query).
    func page<Item>(_ items: [Item], request: Request, container: [(String, Any)],
                    element: (Item) -> MediaContainer.Element) throws -> Response {
        func value(_ name: String) -> Int? {
            (Self.header(name, in: request) ?? request.uri.queryParameters.get(name)).flatMap(Int.init)
        }
        let start = min(max(0, value("X-Plex-Container-Start") ?? 0), items.count)
        let size = min(max(0, value("X-Plex-Container-Size") ?? items.count), items.count)
        let slice = start < items.count ? Array(items[start..<min(items.count, start + size)]) : []
        return try MediaContainer(attributes: [("size", slice.count), ("totalSize", items.count), ("offset", start)] + container,
                                  elements: slice.map(element)).response(for: request)
    }

    /// A request header by name, case-insensitively.
    static func header(_ name: String, in request: Request) -> String? {
        request.headers.first { $0.name.canonicalName.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// A Plex token from plex.tv that opens this server (its owner's account token, or the
    /// server's own token of a user it is shared with); the root server also takes the
    /// reference server's own access tokens.
    func authenticate(_ request: Request) throws {
        let token = Self.header("X-Plex-Token", in: request) ?? request.uri.queryParameters.get("X-Plex-Token")
        guard let token, !token.isEmpty else { throw HTTPError(.unauthorized, message: "Unauthorized") }
        if server.takesBradOSTokens, try database.user(forAccessToken: token) != nil { return }
        guard try plexTV.opens(token, server: server) else { throw HTTPError(.unauthorized, message: "Unauthorized") }
    }
}

/// Generated artwork kept in memory (generation costs tens of milliseconds).
final class ArtworkMemo: Sendable {
    private let images = Mutex<[String: Data]>([:])

    func image(key: String, make: () -> Data) -> Data {
        if let cached = images.withLock({ $0[key] }) { return cached }
        let image = make()
        images.withLock { images in
            if images.count > 256 { images.removeAll() }
            images[key] = image
        }
        return image
    }
}
