import BradOSCore
import Foundation
import GRDB

// Writes: one refresh's result applied in one transaction, touching only what differs.
extension LibraryCache {
    /// What one refresh read, to apply.
    struct Update: Sendable {
        var sectionKey: String
        var sectionTitle: String
        var origin: String?
        /// Albums listed: every album of the section when `whole`, else those updated or found missing.
        var albums: [Album]
        /// Rating keys the server no longer lists (a delta refresh's halving found them).
        var deletions: Set<String> = []
        /// `albums` is the whole section: any other album held is deleted.
        var whole: Bool
        var collections: [PlexCollection]
        var contentChangedAt: Int?
        /// The newest `updatedAt` read (`nil`: a delta's cursor stays where it was).
        var updatedThrough: Int?
        var at: Date
        /// The generation the refresh started from (`nil`: none stored). A delta applies only
        /// to the store it was computed against.
        var base: String?
        /// Store no refresh state (the next refresh downloads every album): a copy moved in
        /// from elsewhere, not read from the server here.
        var forgetsState = false
        /// Apply only into a store that holds nothing yet.
        var intoEmptyOnly = false
    }

    /// The store is not the one the update was computed against (another refresh, or a
    /// section switch, committed meanwhile): nothing was written.
    struct BaseMoved: Error {}

    /// Applies a refresh: albums whose fields differ are upserted, deleted ones removed, the
    /// duplicates of every title touched chosen again; the generation moves only when the
    /// content people see changed. The `snapshot` row's refresh state is always written.
    /// - Returns: the new header, and what changed.
    /// - Throws: ``BaseMoved`` for a delta whose base is gone (or a copy for an empty store
    ///   that is not); ``StorageError``. Nothing is written then.
    func apply(_ update: Update) throws -> (header: LibraryHeader, changes: LibraryChanges) {
        try write { db in
            let old = try Self.header(db)
            let sameStore = old.map { $0.sectionKey == update.sectionKey && $0.origin == update.origin } ?? false
            if update.intoEmptyOnly && old != nil { throw BaseMoved() }
            if !update.whole && (!sameStore || old?.generation != update.base) { throw BaseMoved() }
            var changes = LibraryChanges()
            // Rows whose search documents change are marked with this revision (`SearchRevision`),
            // taken only when something does.
            var revision: Int64?
            func changing() throws -> Int64 {
                if let revision { return revision }
                let next = try SearchRevision.next(db)
                revision = next
                return next
            }
            if !sameStore {
                _ = try changing()
                try db.execute(sql: "DELETE FROM album")
            }

            var deletions = update.deletions
            var listed: [String: Album] = [:]
            for album in update.albums { listed[album.ratingKey] = album }
            if update.whole {
                let held = try String.fetchSet(db, sql: "SELECT ratingKey FROM album")
                deletions.formUnion(held.subtracting(listed.keys))
            }

            var identities = Set<String>()
            let existing = try db.cachedStatement(sql: "SELECT \(Self.albumColumns), identity, shown FROM album WHERE ratingKey = ?")
            let upsert = try db.cachedStatement(sql: """
                INSERT INTO album (ratingKey, title, artist, year, thumb, art, addedAt, sortTitle, identity, shown, revision)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
                ON CONFLICT(ratingKey) DO UPDATE SET title = excluded.title, artist = excluded.artist, year = excluded.year,
                    thumb = excluded.thumb, art = excluded.art, addedAt = excluded.addedAt, sortTitle = excluded.sortTitle,
                    identity = excluded.identity, revision = excluded.revision
                """)
            for album in listed.values where !deletions.contains(album.ratingKey) {
                let row = try Row.fetchOne(existing, arguments: [album.ratingKey])
                if let row, Self.album(row) == album { continue }
                if let row { identities.insert(row[7]); changes.updated += 1 } else { changes.added += 1 }
                identities.insert(album.identity)
                try upsert.execute(arguments: [album.ratingKey, album.title, album.artist, album.year, album.thumb, album.art, album.addedAt,
                                               album.sortTitle, album.identity, try changing()])
            }
            let delete = try db.cachedStatement(sql: "DELETE FROM album WHERE ratingKey = ?")
            for key in deletions {
                guard let row = try Row.fetchOne(existing, arguments: [key]) else { continue }
                identities.insert(row[7])
                if (row[8] as Int) == 1 { changes.removed += 1 }
                _ = try changing()
                try delete.execute(arguments: [key])
            }
            try Self.chooseShown(db, among: identities.count > 2_000 ? nil : identities)

            let collectionsChanged = try Self.collections(db) != update.collections
            if collectionsChanged {
                let revision = try changing()
                try db.execute(sql: "DELETE FROM collection")
                let insert = try db.cachedStatement(
                    sql: "INSERT INTO collection (position, ratingKey, title, childCount, thumb, revision) VALUES (?, ?, ?, ?, ?, ?)")
                for (position, collection) in update.collections.enumerated() {
                    try insert.execute(arguments: [position, collection.ratingKey, collection.title, collection.childCount, collection.thumb, revision])
                }
            }
            let changed = old == nil || !sameStore || old?.sectionTitle != update.sectionTitle || collectionsChanged
                || changes.added + changes.updated + changes.removed > 0
            // A whole listing sets the cursor to what it read (were another refresh's newer
            // rows written over by an older listing, the next refresh asks for them again).
            let cursor = update.whole ? update.updatedThrough : update.updatedThrough ?? old?.updatedThrough
            let header = LibraryHeader(
                sectionKey: update.sectionKey, sectionTitle: update.sectionTitle, origin: update.origin,
                generation: changed ? UUID().uuidString : old!.generation, savedAt: changed ? update.at : old!.savedAt,
                checkedAt: update.at, wholeAt: update.forgetsState ? nil : update.whole ? update.at : old?.wholeAt,
                contentChangedAt: update.forgetsState ? nil : update.contentChangedAt, updatedThrough: update.forgetsState ? nil : cursor,
                shownCount: changed ? try Int.fetchOne(db, sql: "SELECT count(*) FROM album WHERE shown = 1") ?? 0 : old!.shownCount,
                collections: update.collections)
            try Self.save(header, db)
            return (header, changes)
        }
    }

    /// Marks, for each title/artist/year given (every one when `nil`), the first album in
    /// brados's order as shown and the others as its duplicates.
    static func chooseShown(_ db: Database, among identities: Set<String>?) throws {
        let choose = """
            UPDATE album SET shown = (ratingKey = (SELECT first.ratingKey FROM album AS first WHERE first.identity = album.identity
                ORDER BY first.sortTitle, first.ratingKey LIMIT 1))
            """
        guard let identities else { return try db.execute(sql: choose) }
        let statement = try db.cachedStatement(sql: choose + " WHERE identity = ?")
        for identity in identities { try statement.execute(arguments: [identity]) }
    }

    static func save(_ header: LibraryHeader, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO snapshot (id, sectionKey, sectionTitle, origin, generation, savedAt, checkedAt, wholeAt, contentChangedAt, updatedThrough, shownCount)
            VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET sectionKey = excluded.sectionKey, sectionTitle = excluded.sectionTitle, origin = excluded.origin,
                generation = excluded.generation, savedAt = excluded.savedAt, checkedAt = excluded.checkedAt, wholeAt = excluded.wholeAt,
                contentChangedAt = excluded.contentChangedAt, updatedThrough = excluded.updatedThrough, shownCount = excluded.shownCount
            """, arguments: [header.sectionKey, header.sectionTitle, header.origin, header.generation, header.savedAt.timeIntervalSince1970,
                             header.checkedAt.timeIntervalSince1970, header.wholeAt?.timeIntervalSince1970, header.contentChangedAt,
                             header.updatedThrough, header.shownCount])
    }
}

/// What a refresh changed: albums new to the store, albums whose fields changed, shown
/// albums removed.
public struct LibraryChanges: Sendable, Equatable {
    public var added = 0
    public var updated = 0
    public var removed = 0
}

extension Album {
    /// The key of brados's order (then the rating key): the title in lower case, its accents
    /// composed (NFC), so that the same title typed two ways sorts and matches as one.
    var sortTitle: String { title.precomposedStringWithCanonicalMapping.lowercased() }
}
