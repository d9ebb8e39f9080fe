import BradOSCore
import Foundation

/// Human and JSON output of the library.
public struct LibraryRenderer: Sendable {
    let output: Output

    public init(output: Output) { self.output = output }

    public func albums(_ snapshot: LibrarySnapshot, source: DataSource) throws {
        if output.format == .json {
            struct Document: Encodable { var source: DataSource; var section: String; var albums: [Album] }
            return try output.json(Document(source: source, section: snapshot.sectionKey, albums: snapshot.albums))
        }
        output.line(output.styled("\(snapshot.albums.count) albums", .bold) + " · \(snapshot.sectionTitle) · " + output.styled(source.origin, .dim))
        albumTable(snapshot.albums)
    }

    func albumTable(_ albums: [Album]) {
        output.table(Table(headers: ["KEY", "TITLE", "ARTIST", "YEAR", "ART"],
                           rows: albums.map { [$0.ratingKey, $0.title, $0.artist, $0.year.map(String.init) ?? "", $0.thumb == nil ? "-" : "✓"] },
                           rightAligned: [3]))
    }

    /// After a live refresh found changes.
    public func rerenderAlbums(old: LibrarySnapshot, new: LibrarySnapshot) throws -> Bool {
        guard !old.sameContent(as: new) else { return false }
        let before = Set(old.albums.map(\.ratingKey)), after = Set(new.albums.map(\.ratingKey))
        let added = after.subtracting(before).count, removed = before.subtracting(after).count
        output.line()
        output.line(output.styled("↻ \(added) added, \(removed) removed, \(new.albums.count) albums", .cyan) + " · " + output.styled("from the network", .dim))
        albumTable(new.albums)
        return true
    }

    /// A snapshot shown as its albums (`library albums`).
    public var albumsView: AlbumsView { AlbumsView(renderer: self) }

    /// A snapshot shown as its collections (`library collections`).
    public var collectionsView: CollectionsView { CollectionsView(renderer: self) }

    public struct AlbumsView: CachePresenter, Sendable {
        let renderer: LibraryRenderer
        public func render(_ value: LibrarySnapshot, source: DataSource) throws { try renderer.albums(value, source: source) }
        public func rerender(old: LibrarySnapshot, new: LibrarySnapshot) throws -> Bool { try renderer.rerenderAlbums(old: old, new: new) }
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

    public func detail(_ detail: AlbumDetail, source: DataSource, artwork: URL?) throws {
        if output.format == .json {
            struct Document: Encodable { var source: DataSource; var album: AlbumDetail; var artwork: String? }
            return try output.json(Document(source: source, album: detail, artwork: artwork?.path))
        }
        var rows = [["title", detail.album.title], ["artist", detail.album.artist]]
        if let year = detail.album.year { rows.append(["year", "\(year)"]) }
        if !detail.genres.isEmpty { rows.append(["genre", detail.genres.joined(separator: ", ")]) }
        if let studio = detail.studio { rows.append(["label", studio]) }
        if let tracks = detail.trackCount { rows.append(["tracks", "\(tracks)"]) }
        if let summary = detail.summary { rows.append(["summary", summary]) }
        rows.append(["artwork", artwork?.path ?? "(not available)"])
        rows.append(["source", source.origin])
        output.table(Table(headers: [], rows: rows))
    }
}
