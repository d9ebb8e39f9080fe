import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation

/// A library section (a music section has `type == "artist"`).
public struct PlexSection: Codable, Sendable, Equatable {
    public var key: String
    public var type: String
    public var title: String
    /// A counter Plex moves whenever the section's content changes: unchanged since a
    /// snapshot means there is nothing to fetch.
    public var contentChangedAt: Int?

    public init(key: String, type: String, title: String, contentChangedAt: Int? = nil) {
        self.key = key
        self.type = type
        self.title = title
        self.contentChangedAt = contentChangedAt
    }

    /// Whether it is a music library (Plex's type for one is `artist`).
    public var isMusic: Bool { type == "artist" }
}

/// An album, with only the fields the output needs (the snapshot stores exactly these).
/// What has a cover on the server: an album, or a collection. Its artwork is cached by
/// ``ArtworkCache`` under the server's rating key (one key space for both) and its path.
public protocol ArtworkItem: Sendable {
    var ratingKey: String { get }
    var title: String { get }
    /// The artwork's path on the server; `nil` when it has none (the placeholder is drawn).
    var thumb: String? { get }
}

public struct Album: ArtworkItem, Codable, Equatable, Identifiable {
    public var ratingKey: String
    public var title: String
    public var artist: String
    public var year: Int?
    public var thumb: String?
    public var art: String?
    /// When the album was added to the server, in Unix seconds as Plex gives it (and the
    /// cache keeps it); JSON output carries it as an ISO 8601 date, as every date there is.
    public var addedAt: Int?

    public var id: String { ratingKey }

    public init(ratingKey: String, title: String, artist: String, year: Int? = nil, thumb: String? = nil, art: String? = nil, addedAt: Int? = nil) {
        self.ratingKey = ratingKey
        self.title = title
        self.artist = artist
        self.year = year
        self.thumb = thumb
        self.art = art
        self.addedAt = addedAt
    }

    enum CodingKeys: String, CodingKey { case ratingKey, title, artist, year, thumb, art, addedAt }

    /// Decodes an album from the snapshot, refusing a rating key that is not digits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ratingKey = try container.decode(IdentifierRule.ratingKey, forKey: .ratingKey)
        title = try container.decode(String.self, forKey: .title)
        artist = try container.decode(String.self, forKey: .artist)
        year = try container.decodeIfPresent(Int.self, forKey: .year)
        thumb = try container.decodeIfPresent(String.self, forKey: .thumb)
        art = try container.decodeIfPresent(String.self, forKey: .art)
        // An ISO 8601 date (brados's own JSON), or Unix seconds (Plex's).
        if let seconds = try? container.decodeIfPresent(Int.self, forKey: .addedAt) {
            addedAt = seconds
        } else {
            addedAt = try container.decodeIfPresent(Date.self, forKey: .addedAt).map { Int($0.timeIntervalSince1970) }
        }
    }

    /// Every field, `addedAt` as an ISO 8601 date (`null` when unknown, as every absent field is).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ratingKey, forKey: .ratingKey)
        try container.encode(title, forKey: .title)
        try container.encode(artist, forKey: .artist)
        try container.encode(year, forKey: .year)
        try container.encode(thumb, forKey: .thumb)
        try container.encode(art, forKey: .art)
        try container.encode(addedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) }, forKey: .addedAt)
    }

    /// The identity used to set duplicates apart (``LibraryCache/chooseShown(_:among:)``): the same title, artist and year.
    var identity: String { "\(sortTitle)|\(artist.precomposedStringWithCanonicalMapping.lowercased())|\(year ?? 0)" }
}

/// A collection of albums.
public struct PlexCollection: ArtworkItem, Codable, Equatable, Identifiable {
    public var ratingKey: String
    public var title: String
    public var childCount: Int
    @NullWhenAbsent public var thumb: String?
    public var id: String { ratingKey }

    public init(ratingKey: String, title: String, childCount: Int, thumb: String?) {
        self.ratingKey = ratingKey
        self.title = title
        self.childCount = childCount
        self.thumb = thumb
    }

    enum CodingKeys: String, CodingKey { case ratingKey, title, childCount, thumb }

    /// Decodes a collection, refusing a rating key that is not digits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ratingKey = try container.decode(IdentifierRule.ratingKey, forKey: .ratingKey)
        title = try container.decode(String.self, forKey: .title)
        childCount = try container.decode(Int.self, forKey: .childCount)
        thumb = try container.decodeIfPresent(String.self, forKey: .thumb)
    }
}

/// An album's detail (`library show`), or a collection's: then ``collection`` is set and
/// ``album`` carries its title and cover.
public struct AlbumDetail: Codable, Sendable, Equatable {
    public var album: Album
    @NullWhenAbsent public var summary: String?
    @NullWhenAbsent public var studio: String?
    public var genres: [String]
    @NullWhenAbsent public var trackCount: Int?
    public var collection: PlexCollection?

    public init(album: Album, summary: String? = nil, studio: String? = nil, genres: [String] = [], trackCount: Int? = nil) {
        self.album = album
        self.summary = summary
        self.studio = studio
        self.genres = genres
        self.trackCount = trackCount
    }

    public init(collection: PlexCollection) {
        self.init(album: Album(ratingKey: collection.ratingKey, title: collection.title, artist: "", thumb: collection.thumb))
        self.collection = collection
    }

    /// What the cover is of: the collection, or the album.
    public var item: any ArtworkItem { collection ?? album }
}


/// Plex's `MediaContainer` JSON envelope.
struct MediaContainerEnvelope<Item: Decodable>: Decodable {
    struct Container: Decodable {
        var size: Int?
        var totalSize: Int?
        var offset: Int?
        var items: [Item]

        enum CodingKeys: String, CodingKey { case size, totalSize, offset, Metadata, Directory }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            size = try container.decodeIfPresent(Int.self, forKey: .size)
            totalSize = try container.decodeIfPresent(Int.self, forKey: .totalSize)
            offset = try container.decodeIfPresent(Int.self, forKey: .offset)
            items = try container.decodeIfPresent([Item].self, forKey: .Metadata)
                ?? container.decodeIfPresent([Item].self, forKey: .Directory) ?? []
        }
    }
    var MediaContainer: Container
}

/// An album's details as `library show` keeps them, with when.
public struct CachedAlbumDetail: VersionedDocument, Equatable {
    public static let currentFormatVersion = 1
    public var formatVersion = currentFormatVersion
    public var savedAt: Date
    public var detail: AlbumDetail

    public init(savedAt: Date, detail: AlbumDetail) {
        self.savedAt = savedAt
        self.detail = detail
    }
}

/// Plex metadata items as they come over the wire.
struct PlexMetadata: Decodable {
    struct Tag: Decodable { var tag: String }
    var ratingKey: String
    var title: String
    var type: String?
    var parentTitle: String?
    var year: Int?
    var thumb: String?
    var art: String?
    var addedAt: Int?
    var updatedAt: Int?
    var childCount: FlexibleInt?
    var leafCount: Int?
    var summary: String?
    var studio: String?
    var Genre: [Tag]?

    enum CodingKeys: String, CodingKey {
        case ratingKey, title, type, parentTitle, year, thumb, art, addedAt, updatedAt, childCount, leafCount, summary, studio, Genre
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ratingKey = try container.decode(IdentifierRule.ratingKey, forKey: .ratingKey)
        title = try container.decode(String.self, forKey: .title)
        type = try container.decodeIfPresent(String.self, forKey: .type)
        parentTitle = try container.decodeIfPresent(String.self, forKey: .parentTitle)
        year = try container.decodeIfPresent(Int.self, forKey: .year)
        thumb = try container.decodeIfPresent(String.self, forKey: .thumb)
        art = try container.decodeIfPresent(String.self, forKey: .art)
        addedAt = try container.decodeIfPresent(Int.self, forKey: .addedAt)
        updatedAt = try container.decodeIfPresent(Int.self, forKey: .updatedAt)
        childCount = try container.decodeIfPresent(FlexibleInt.self, forKey: .childCount)
        leafCount = try container.decodeIfPresent(Int.self, forKey: .leafCount)
        summary = try container.decodeIfPresent(String.self, forKey: .summary)
        studio = try container.decodeIfPresent(String.self, forKey: .studio)
        Genre = try container.decodeIfPresent([Tag].self, forKey: .Genre)
    }

    var album: Album {
        Album(ratingKey: ratingKey, title: title, artist: parentTitle ?? "Unknown Artist", year: year,
              thumb: thumb.flatMap { $0.isEmpty ? nil : $0 }, art: art.flatMap { $0.isEmpty ? nil : $0 }, addedAt: addedAt)
    }
}

/// Plex sends some counts as numbers and some as strings.
struct FlexibleInt: Decodable {
    var value: Int
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) { value = number; return }
        guard let number = Int(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a number")
        }
        value = number
    }
}

extension IdentifierRule {
    /// Plex rating keys: decimal digits.
    public static let ratingKey = IdentifierRule.digits("rating key")
}
