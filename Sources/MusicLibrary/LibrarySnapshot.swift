import BradOSCore
import Logging
import Foundation

/// The lightweight metadata snapshot rendered before the live refresh: deduplicated albums
/// and collections with only the fields the output needs. Stored in the profile's data dir
/// (`library/snapshot.json`); a snapshot of another format version reads as missing.
public struct LibrarySnapshot: VersionedDocument, Equatable {
    public static let currentFormatVersion = 1

    public var formatVersion: Int
    public var savedAt: Date
    public var sectionKey: String
    public var sectionTitle: String
    public var albums: [Album]
    public var collections: [PlexCollection]
    /// The media server it was read from (its machine identifier; `nil` for the BradOS
    /// server's Plex routes): a snapshot of another server reads as missing.
    public var origin: String?

    public init(savedAt: Date, sectionKey: String, sectionTitle: String, albums: [Album], collections: [PlexCollection], origin: String? = nil) {
        formatVersion = Self.currentFormatVersion
        self.origin = origin
        self.savedAt = savedAt
        self.sectionKey = sectionKey
        self.sectionTitle = sectionTitle
        self.albums = albums
        self.collections = collections
    }

    /// Whether the parts people see differ (the save time aside).
    func sameContent(as other: LibrarySnapshot) -> Bool {
        albums == other.albums && collections == other.collections && sectionKey == other.sectionKey
    }
}

/// Reads and writes the snapshot.
public struct LibrarySnapshotCache: Sendable {
    let document: VersionedJSONDocument<LibrarySnapshot>

    public init(url: URL, logger: Logger = Logger(label: "brados.library")) {
        document = VersionedJSONDocument(url: url, logger: logger)
    }

    /// The snapshot, or `nil` when missing, corrupt or of an incompatible version. The file is
    /// left as it is: the next refresh replaces it (and one of another version may be a newer
    /// brados's, sharing the folder).
    public func load() -> LibrarySnapshot? { document.load() }

    public func save(_ snapshot: LibrarySnapshot) throws { try document.save(snapshot) }

    public var url: URL { document.url }
}
