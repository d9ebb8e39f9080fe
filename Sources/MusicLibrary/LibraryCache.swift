import BradOSCore
import BradOSStorage
import Foundation
import GRDB
import Logging

/// The library's local store: one SQLite database per profile
/// (`<data>/library/library.sqlite`, opened through ``SQLiteStore``), read in part. It keeps
/// a rollback journal, not WAL: every listing reads it, a refresh alone writes it, and a
/// read then writes nothing, so the albums still show on a full disk.
///
/// - `snapshot`: one row, the section it holds (key, title, server) and the refresh state
///   (`contentChangedAt`, the `updatedAt` cursor, when the server last confirmed it, when
///   every album was last downloaded), its generation and its count of shown albums.
/// - `album`: every album the section lists, by rating key, with `sortTitle` (the title in
///   lower case) and `shown` (0 for a duplicate of a shown album: same title, artist and
///   year). The index `album_shown_order` (shown, sortTitle, ratingKey) is brados's order and
///   serves a page, a first screen or a streamed listing without reading the rest.
/// - `collection`: the section's collections, in the server's order.
///
/// Writes are one transaction each and touch only rows whose content differs (``apply(_:)``):
/// a refresh that finds Plex's own no-op updates writes the `snapshot` row alone. A damaged
/// file is moved aside and a new one started (the server holds everything it held).
public final class LibraryCache: Sendable {
    public let url: URL
    let writer: any DatabaseWriter

    /// Opens (creating and migrating) the database.
    /// - Throws: ``StorageError``.
    public init(url: URL, logger: Logger = Logger(label: "brados.library")) throws {
        self.url = url
        writer = try SQLiteStore.mapErrors(at: url.path) {
            try SQLiteStore.openReplacingDamaged(url, open: { try SQLiteStore.openWithRollbackJournal($0, migrator: Self.migrator) }) { aside in
                logger.warning("the library store \(url.path) is damaged; it was moved to \(aside.lastPathComponent) and is refetched from Plex")
            }
        }
    }

    private init(url: URL, writer: any DatabaseWriter) {
        self.url = url
        self.writer = writer
    }

    /// A store in memory holding a copy of `source` (empty without one): where a refresh
    /// that the disk has no room to store is applied, to show it.
    /// - Throws: ``StorageError``.
    static func inMemory(copying source: LibraryCache?, url: URL) throws -> LibraryCache {
        try SQLiteStore.mapErrors(at: url.path) {
            let memory = try DatabaseQueue()
            if let source { try source.writer.backup(to: memory) } else { try migrator.migrate(memory) }
            return LibraryCache(url: url, writer: memory)
        }
    }

    /// What the `snapshot` row says, or `nil` before the first refresh.
    public func header() throws -> LibraryHeader? {
        try read { db in try Self.header(db) }
    }

    /// Shown albums in brados's order, from `offset`, at most `limit` (all when `nil`).
    public func albums(limit: Int? = nil, offset: Int = 0) throws -> [Album] {
        try read { db in
            try Self.albums(db, sql: "SELECT \(Self.albumColumns) FROM album WHERE shown = 1 ORDER BY sortTitle, ratingKey LIMIT ? OFFSET ?",
                            arguments: [limit ?? -1, offset])
        }
    }

    /// Every shown album in brados's order, `batchSize` at a time. Each batch is its own short
    /// read, resumed after the last album read (by the order's index): no lock is held while
    /// `body` prints, so a refresh in another process never waits on a listing read slowly
    /// (through a pager). A refresh committed between two batches shows in the later ones.
    public func forEachShownAlbum(batchSize: Int = 512, _ body: ([Album]) throws -> Void) throws {
        var after: (sortTitle: String, ratingKey: String)?
        while true {
            // Two statements, not one with `? IS NULL OR …`: a disjunction keeps SQLite from
            // seeking the index, and every batch would scan from the first album again.
            let batch = try read { db in
                if let after {
                    try Row.fetchAll(db, sql: """
                        SELECT \(Self.albumColumns), sortTitle FROM album
                        WHERE shown = 1 AND (sortTitle, ratingKey) > (?, ?) ORDER BY sortTitle, ratingKey LIMIT ?
                        """, arguments: [after.sortTitle, after.ratingKey, batchSize])
                } else {
                    try Row.fetchAll(db, sql: "SELECT \(Self.albumColumns), sortTitle FROM album WHERE shown = 1 ORDER BY sortTitle, ratingKey LIMIT ?",
                                     arguments: [batchSize])
                }
            }
            guard let last = batch.last else { return }
            try body(batch.map(Self.album))
            after = (last[7], last[0])
            if batch.count < batchSize { return }
        }
    }

    /// The widest rating key, title and artist among the shown albums (in characters), for a
    /// table printed as it is read.
    public func shownWidths() throws -> (key: Int, title: Int, artist: Int) {
        try read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT coalesce(max(length(ratingKey)), 0), coalesce(max(length(title)), 0), coalesce(max(length(artist)), 0)
                FROM album WHERE shown = 1
                """)
            return (row?[0] ?? 0, row?[1] ?? 0, row?[2] ?? 0)
        }
    }

    /// A shown album, by rating key.
    public func album(_ ratingKey: String) throws -> Album? {
        try read { db in
            try Self.albums(db, sql: "SELECT \(Self.albumColumns) FROM album WHERE ratingKey = ? AND shown = 1", arguments: [ratingKey]).first
        }
    }

    /// Every album's rating key and `addedAt` (shown or not), for finding deletes.
    func addedIndex() throws -> [(added: Int, key: String)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT coalesce(addedAt, 0), ratingKey FROM album").map { ($0[0], $0[1]) }
        }
    }

    /// How many albums it holds (shown or not), and which of `keys` it holds.
    func count(holding keys: [String]) throws -> (total: Int, held: Set<String>) {
        try read { db in
            let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM album") ?? 0
            var held = Set<String>()
            let statement = try db.cachedStatement(sql: "SELECT 1 FROM album WHERE ratingKey = ?")
            for key in keys where try Int.fetchOne(statement, arguments: [key]) != nil { held.insert(key) }
            return (total, held)
        }
    }

    /// Moves only the time the server last confirmed the store, if it still holds `generation`.
    /// - Returns: the header then, or `nil` when another refresh changed the store meanwhile.
    /// - Throws: ``StorageError``.
    func confirm(_ generation: String, at time: Date) throws -> LibraryHeader? {
        try write { db in
            try db.execute(sql: "UPDATE snapshot SET checkedAt = max(checkedAt, ?) WHERE generation = ?", arguments: [time.timeIntervalSince1970, generation])
            return db.changesCount == 1 ? try Self.header(db) : nil
        }
    }

    // MARK: - Rows

    static let albumColumns = "ratingKey, title, artist, year, thumb, art, addedAt"

    static func album(_ row: Row) -> Album {
        Album(ratingKey: row[0], title: row[1], artist: row[2], year: row[3], thumb: row[4], art: row[5], addedAt: row[6])
    }

    static func albums(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Album] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map(album)
    }

    static func collections(_ db: Database) throws -> [PlexCollection] {
        try Row.fetchAll(db, sql: "SELECT ratingKey, title, childCount, thumb FROM collection ORDER BY position").map {
            PlexCollection(ratingKey: $0[0], title: $0[1], childCount: $0[2], thumb: $0[3])
        }
    }

    static func header(_ db: Database) throws -> LibraryHeader? {
        try Row.fetchOne(db, sql: """
            SELECT sectionKey, sectionTitle, origin, generation, savedAt, checkedAt, wholeAt, contentChangedAt, updatedThrough, shownCount
            FROM snapshot
            """).map { row in
            LibraryHeader(sectionKey: row[0], sectionTitle: row[1], origin: row[2], generation: row[3],
                          savedAt: Date(timeIntervalSince1970: row[4]), checkedAt: Date(timeIntervalSince1970: row[5]),
                          wholeAt: (row[6] as Double?).map(Date.init(timeIntervalSince1970:)), contentChangedAt: row[7], updatedThrough: row[8],
                          shownCount: row[9], collections: try collections(db))
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try SQLiteStore.mapErrors(at: url.path) { try writer.write(body) }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try SQLiteStore.mapErrors(at: url.path) { try writer.read(body) }
    }

}

/// The `snapshot` row: which section the store holds, and where its refresh stands.
public struct LibraryHeader: Sendable, Equatable {
    public var sectionKey: String
    public var sectionTitle: String
    /// The media server it was read from (its machine identifier; `nil` for the BradOS
    /// server's Plex routes): a store of another server reads as missing.
    public var origin: String?
    /// A new value whenever the content people see changes (albums, collections, section).
    public var generation: String
    /// When the content last changed.
    public var savedAt: Date
    /// When the server last confirmed it (the age a read shows).
    public var checkedAt: Date
    /// When every album was last downloaded (`nil`: never here, e.g. migrated or imported):
    /// a refresh downloads everything again once this is a day old.
    public var wholeAt: Date?
    /// The section's `contentChangedAt` at the last refresh.
    public var contentChangedAt: Int?
    /// The last second every update of which the copy holds (``AlbumChanges/seenThrough``):
    /// the next refresh asks for the albums updated after it.
    public var updatedThrough: Int?
    /// Shown albums (duplicates aside).
    public var shownCount: Int
    public var collections: [PlexCollection]
}
