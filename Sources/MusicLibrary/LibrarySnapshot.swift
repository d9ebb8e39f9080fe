import BradOSCore
import Foundation

/// The library as a read shows it: the section's header from ``LibraryCache`` (how many
/// albums, its collections, when the server last confirmed it), and its albums read from the
/// store in part (``albums(limit:offset:)``) or streamed (``forEachAlbum(_:)``), never decoded
/// whole to show a screen.
public struct LibrarySnapshot: Sendable {
    public let header: LibraryHeader
    /// What the refresh that returned it changed (`nil` for a stored read).
    public var changes: LibraryChanges?
    let database: LibraryCache

    init(header: LibraryHeader, changes: LibraryChanges? = nil, database: LibraryCache) {
        self.header = header
        self.changes = changes
        self.database = database
    }

    public var sectionKey: String { header.sectionKey }
    public var sectionTitle: String { header.sectionTitle }
    /// When the server last confirmed it.
    public var savedAt: Date { header.checkedAt }
    public var collections: [PlexCollection] { header.collections }
    /// Shown albums (duplicates aside).
    public var albumCount: Int { header.shownCount }

    /// Shown albums in brados's order (title in any case, then rating key), from `offset`, at most `limit`.
    /// - Throws: ``StorageError``.
    public func albums(limit: Int? = nil, offset: Int = 0) throws -> [Album] { try database.albums(limit: limit, offset: offset) }

    /// The items of a first screen of `limit` entries: albums in brados's order, or collections.
    public func firstScreen(_ shown: LibraryRepository.FirstScreen, limit: Int) throws -> [any ArtworkItem] {
        switch shown {
        case .albums: try albums(limit: limit)
        case .collections: Array(collections.prefix(limit))
        }
    }

    /// Every shown album in brados's order, a batch at a time.
    /// - Throws: ``StorageError``, or what `body` throws.
    public func forEachAlbum(_ body: ([Album]) throws -> Void) throws { try database.forEachShownAlbum(body) }

    /// Whether the content people see differs from `other`'s (the time it was confirmed aside).
    public func differs(from other: LibrarySnapshot) -> Bool { header.generation != other.header.generation }
}
