import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// Which shown albums a listing prints: from `offset`, at most `limit` (all when `nil`).
public struct AlbumPage: Sendable, Equatable {
    public var limit: Int?
    public var offset: Int

    public init(limit: Int? = nil, offset: Int = 0) {
        self.limit = limit
        self.offset = offset
    }

    public static let all = AlbumPage()
    var isAll: Bool { limit == nil && offset == 0 }
}

/// Human and JSON output of the library.
public struct LibraryRenderer: Sendable {
    let output: Output

    public init(output: Output) { self.output = output }

    /// The shown albums of `page`: a page is read alone; a whole listing is printed as it is
    /// read (table or `--json`), its first line out before the last album is read.
    public func albums(_ snapshot: LibrarySnapshot, source: DataSource, page: AlbumPage = .all) throws {
        let total = snapshot.albumCount
        if output.format == .json {
            let fields: [String: any Encodable] = ["source": source, "section": snapshot.sectionKey, "total": total, "offset": page.offset]
            return try output.jsonStream(arrayKey: "albums", of: Album.self, fields: fields) { emit in
                if page.isAll { try snapshot.forEachAlbum(emit) } else { try emit(try snapshot.albums(limit: page.limit, offset: page.offset)) }
            }
        }
        guard !page.isAll else {
            output.line(output.styled("\(total) albums", .bold) + " · \(snapshot.sectionTitle) · " + output.styled(source.origin, .dim))
            let widths = try snapshot.database.shownWidths()
            let table = output.tableStream(headers: Self.albumHeaders, widths: [widths.key, widths.title, widths.artist, 4, 3], rightAligned: [3])
            try snapshot.forEachAlbum { table.rows($0.map(Self.row)) }
            return
        }
        let albums = try snapshot.albums(limit: page.limit, offset: page.offset)
        let range = albums.isEmpty ? "no albums" : "albums \(page.offset + 1)–\(page.offset + albums.count)"
        output.line(output.styled("\(range) of \(total)", .bold) + " · \(snapshot.sectionTitle) · " + output.styled(source.origin, .dim))
        albumTable(albums)
        let next = page.offset + albums.count
        if output.io.isOutputTerminal, next < total, page.limit != nil {
            output.notice("\(total - next) more: `--offset \(next)` shows the next page.")
        }
    }

    static let albumHeaders = ["KEY", "TITLE", "ARTIST", "YEAR", "ART"]

    static func row(_ album: Album) -> [String] {
        [album.ratingKey, album.title, album.artist, album.year.map(String.init) ?? "", album.thumb == nil ? "-" : "✓"]
    }

    func albumTable(_ albums: [Album]) {
        output.table(Table(headers: Self.albumHeaders, rows: albums.map(Self.row), rightAligned: [3]))
    }

    /// After a live refresh found changes: what changed, then the same page again.
    public func rerenderAlbums(old: LibrarySnapshot, new: LibrarySnapshot, page: AlbumPage = .all) throws -> Bool {
        guard new.differs(from: old) else { return false }
        let changes = new.changes ?? LibraryChanges()
        output.line()
        output.line(output.styled("↻ \(changes.added) added, \(changes.updated) changed, \(changes.removed) removed, \(new.albumCount) albums", .cyan)
                    + " · " + output.styled("from the network", .dim))
        try albums(new, source: .network, page: page)
        return true
    }

    /// A snapshot shown as its albums (`library albums`), one page of them or all.
    public func albumsView(page: AlbumPage = .all) -> AlbumsView { AlbumsView(renderer: self, page: page) }

    /// A snapshot shown as its collections (`library collections`).
    public var collectionsView: CollectionsView { CollectionsView(renderer: self) }

    public struct AlbumsView: CachePresenter, Sendable {
        let renderer: LibraryRenderer
        let page: AlbumPage
        public func render(_ value: LibrarySnapshot, source: DataSource) throws { try renderer.albums(value, source: source, page: page) }
        public func rerender(old: LibrarySnapshot, new: LibrarySnapshot) throws -> Bool { try renderer.rerenderAlbums(old: old, new: new, page: page) }
    }

    public struct CollectionsView: CachePresenter, Sendable {
        let renderer: LibraryRenderer
        public func render(_ value: LibrarySnapshot, source: DataSource) throws { try renderer.collections(value, source: source) }
        public func rerender(old: LibrarySnapshot, new: LibrarySnapshot) throws -> Bool {
            guard old.collections != new.collections else { return false }
            try renderer.collections(new, source: .network)
            return true
        }
    }

    public func collections(_ snapshot: LibrarySnapshot, source: DataSource) throws {
        if output.format == .json {
            struct Document: Encodable { var source: DataSource; var collections: [PlexCollection] }
            return try output.json(Document(source: source, collections: snapshot.collections))
        }
        output.line(output.styled("\(snapshot.collections.count) collections", .bold) + " · " + output.styled(source.origin, .dim))
        output.table(Table(headers: ["KEY", "TITLE", "ALBUMS"],
                           rows: snapshot.collections.map { [$0.ratingKey, $0.title, "\($0.childCount)"] }, rightAligned: [2]))
    }

    public func albumList(_ albums: [Album], title: String) throws {
        if output.format == .json { return try output.json(["albums": albums]) }
        output.line(output.styled(title, .bold) + " · \(albums.count) albums")
        albumTable(albums)
    }

    /// The sections, marking the one commands use when they name none (`used`).
    public func sections(_ sections: [PlexSection], used: String?) throws {
        if output.format == .json {
            struct Row: Encodable { var key: String; var type: String; var title: String; var used: Bool }
            return try output.json(sections.map { Row(key: $0.key, type: $0.type, title: $0.title, used: $0.key == used) })
        }
        output.table(Table(headers: ["KEY", "TYPE", "TITLE", "USED"], rows: sections.map { [$0.key, $0.type, $0.title, $0.key == used ? "*" : ""] }))
    }

    /// An album's details; with `cover`, its cover drawn beside or above them.
    func detail(_ detail: AlbumDetail, source: DataSource, artwork: URL?,
                cover: (art: CoverArt, data: Data?, size: ArtworkCache.Size, area: (columns: Int, rows: Int))? = nil) throws {
        if output.format == .json {
            // One document for both: the one it is not is null.
            struct Document: Encodable {
                var source: DataSource
                @NullWhenAbsent var album: AlbumDetail?
                @NullWhenAbsent var collection: PlexCollection?
                @NullWhenAbsent var artwork: String?
            }
            return try output.json(Document(source: source, album: detail.collection == nil ? detail : nil, collection: detail.collection,
                                            artwork: artwork?.path))
        }
        if let collection = detail.collection {
            let rows = [["title", collection.title], ["collection", "\(collection.childCount) albums (`brados library collections \(collection.ratingKey)`)"],
                        ["artwork", artwork?.path ?? "(not available)"], ["source", source.origin]]
            return detailRows(rows, of: detail, cover: cover)
        }
        var rows = [["title", detail.album.title], ["artist", detail.album.artist]]
        if let year = detail.album.year { rows.append(["year", "\(year)"]) }
        if !detail.genres.isEmpty { rows.append(["genre", detail.genres.joined(separator: ", ")]) }
        if let studio = detail.studio { rows.append(["label", studio]) }
        if let tracks = detail.trackCount { rows.append(["tracks", "\(tracks)"]) }
        if let summary = detail.summary { rows.append(["summary", summary]) }
        rows.append(["artwork", artwork?.path ?? "(not available)"])
        rows.append(["source", source.origin])
        detailRows(rows, of: detail, cover: cover)
    }

    /// The detail's rows, beside (or above) its cover when there is one to draw.
    private func detailRows(_ rows: [[String]], of detail: AlbumDetail,
                            cover: (art: CoverArt, data: Data?, size: ArtworkCache.Size, area: (columns: Int, rows: Int))?) {
        if let cover {
            // The picture's text alternative, first: a reader knows what the blocks are.
            let subject = detail.collection.map { "the collection \($0.title)" } ?? "\(detail.album.title) by \(detail.album.artist)"
            output.line(output.styled("Cover: " + subject, .dim))
            let text = cover.art.detail(cover.data, album: detail.item, size: cover.size, rows: rows.map { ($0[0], $0[1]) },
                                        area: (cover.area.columns, max(1, cover.area.rows - 1))) { output.styled($0, .dim) }
            return output.picture(text)
        }
        output.table(Table(headers: [], rows: rows, wrapLast: true))
    }
}
