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
    /// Albums the server lists that are not shown, being duplicates of shown ones (same
    /// title, artist and year): kept so the snapshot holds what the server counts. `nil` in
    /// snapshots of older brados.
    public var duplicates: [Album]?
    /// A new value on every save, copied into the refresh state: a state written beside
    /// another snapshot (two refreshes at once) does not match it.
    public var generation: String?

    public init(savedAt: Date, sectionKey: String, sectionTitle: String, albums: [Album], collections: [PlexCollection], origin: String? = nil,
                duplicates: [Album]? = nil) {
        formatVersion = Self.currentFormatVersion
        self.origin = origin
        self.savedAt = savedAt
        self.sectionKey = sectionKey
        self.sectionTitle = sectionTitle
        self.albums = albums
        self.collections = collections
        self.duplicates = duplicates
        generation = UUID().uuidString
    }

    /// A snapshot of everything a section lists: in brados's order (title in any case, then
    /// rating key; the same whether it came whole or by changes), duplicates set apart.
    public init(savedAt: Date, sectionKey: String, sectionTitle: String, listing: [Album], collections: [PlexCollection], origin: String?) {
        let ordered = listing.sorted { ($0.title.lowercased(), $0.ratingKey) < ($1.title.lowercased(), $1.ratingKey) }
        let shown = deduplicated(ordered)
        let shownKeys = Set(shown.map(\.ratingKey))
        self.init(savedAt: savedAt, sectionKey: sectionKey, sectionTitle: sectionTitle, albums: shown, collections: collections, origin: origin,
                  duplicates: ordered.filter { !shownKeys.contains($0.ratingKey) })
    }

    /// Every album the server listed, shown or not.
    public var listing: [Album] { albums + (duplicates ?? []) }

    /// Whether the parts people see differ (the save time aside).
    func sameContent(as other: LibrarySnapshot) -> Bool {
        albums == other.albums && collections == other.collections && sectionKey == other.sectionKey && sectionTitle == other.sectionTitle
            && (duplicates ?? []) == (other.duplicates ?? [])
    }
}

/// What a delta refresh starts from, kept beside the snapshot (`snapshot-state.json`) so that
/// a refresh that finds nothing new writes a few bytes, not the whole library: the section's
/// `contentChangedAt` and the newest `updatedAt` read, for one snapshot (its generation,
/// section and server). Written after the snapshot; one that does not match it is ignored
/// (the next refresh is a full one), and `cache import` drops it.
public struct LibraryRefreshState: Codable, Sendable, Equatable {
    public var generation: String?
    public var sectionKey: String
    public var origin: String?
    public var contentChangedAt: Int?
    public var updatedThrough: Int?
    /// When the server last confirmed the snapshot (the age a read shows).
    public var checkedAt: Date
    /// When every album was last downloaded: a refresh downloads everything again once this
    /// is a day old, which bounds any change the delta path could not see.
    public var wholeAt: Date

    func matches(_ snapshot: LibrarySnapshot) -> Bool {
        generation != nil && generation == snapshot.generation && sectionKey == snapshot.sectionKey && origin == snapshot.origin
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

    /// `snapshot-state.json`, beside the snapshot.
    public var stateURL: URL { document.url.deletingLastPathComponent().appendingPathComponent("snapshot-state.json") }

    /// The refresh state, if it is that of `snapshot`.
    public func state(of snapshot: LibrarySnapshot) -> LibraryRefreshState? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let bytes = try? AtomicFile.readIfPresent(stateURL),
              let state = try? decoder.decode(LibraryRefreshState.self, from: bytes), state.matches(snapshot) else { return nil }
        return state
    }

    /// Writes the refresh state (after the snapshot it describes).
    /// - Throws: ``StorageError``.
    public func saveState(_ state: LibraryRefreshState) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        try AtomicFile.write(try encoder.encode(state), to: stateURL)
    }
}
