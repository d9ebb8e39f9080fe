import BradOSCore
import Foundation
import GRDB

// Search documents: album titles and artists, collection names, sent by what changed after
// the index's revision (`SearchRevision`).
extension LibraryCache {
    /// Sends the documents the search index lacks (see ``SearchFeed``), from one read.
    /// - Throws: ``StorageError``; the feed's errors.
    /// Read-only (a search writes nothing to the store): a store of an older schema is
    /// migrated first.
    public static func feedSearch(at url: URL, _ feed: SearchFeed) throws {
        try feed.sendChanges(at: url, migrate: { _ = try LibraryCache(url: url) }, changed: { db, after in
            let albums = try Row.fetchCursor(db, sql: "SELECT ratingKey, title, artist, year, addedAt FROM album WHERE revision > ?", arguments: [after])
            while let row = try albums.next() {
                let key: String = row[0]
                let year = (row[3] as Int?).map { " (\($0))" } ?? ""
                try feed.add(SearchDocument(key: "album:" + key, title: row[1], body: (row[2] as String) + year,
                                            date: (row[4] as Int?).map { Date(timeIntervalSince1970: TimeInterval($0)) },
                                            command: "brados library show \(key)"))
            }
            let collections = try Row.fetchCursor(db, sql: "SELECT ratingKey, title, childCount FROM collection WHERE revision > ? GROUP BY ratingKey", arguments: [after])
            while let row = try collections.next() {
                try feed.add(SearchDocument(key: "collection:" + (row[0] as String), title: row[1], body: "collection of \(row[2] as Int) albums",
                                            date: nil, command: "brados library collections"))
            }
        }, count: { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM album) + (SELECT count(DISTINCT ratingKey) FROM collection)") ?? 0
        }, keys: { db in
            try String.fetchSet(db, sql: "SELECT 'album:' || ratingKey FROM album UNION ALL SELECT 'collection:' || ratingKey FROM collection")
        })
    }
}
