import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation
import GRDB

/// `cache import --merge`: the album store is a copy of one section's list, so the copy the
/// server confirmed last stays whole (an album union would bring removed albums back). The
/// artwork is one cache of images named by what they show: both copies' images stay, each
/// with the later of its two last-access times, and the cap (`library` artwork, least
/// recently used first) applies when the cache next opens.
extension LibraryPlugin: MergesByItem {
    public func mergeImport(cache: URL, data: URL, into target: ProfileScope) throws -> [String] {
        [try mergeStore(data: data, into: target), try mergeArtwork(cache: cache, into: target)].compactMap { $0 }
    }

    private func mergeStore(data: URL, into target: ProfileScope) throws -> String? {
        let staged = data.appendingPathComponent("library.sqlite")
        let theirs = try Self.storeSummary(staged), ours = try Self.storeSummary(Self.databaseURL(target))
        guard let theirs else { return ours == nil ? nil : "keeps this profile's albums (the archive has none)" }
        guard let ours else { return "takes the archive's \(theirs.described) (this profile has none stored)" }
        if ours.checkedAt >= theirs.checkedAt {
            // No staged store: the import leaves this profile's as it is.
            for name in ["library.sqlite", "library.sqlite-wal", "library.sqlite-shm", "snapshot.json"] {
                try FileSystem.remove(data.appendingPathComponent(name))
            }
            return "keeps this profile's \(ours.described), checked \(ImportMerge.when(ours.checkedAt)), not older than the archive's"
        }
        return "takes the archive's \(theirs.described), checked \(ImportMerge.when(theirs.checkedAt)), newer than this profile's"
    }

    private func mergeArtwork(cache: URL, into target: ProfileScope) throws -> String? {
        let staged = cache.appendingPathComponent("artwork/index.sqlite")
        let mine = Self.artworkDirectory(target).appendingPathComponent("index.sqlite")
        guard FileManager.default.fileExists(atPath: staged.path) else {
            return FileManager.default.fileExists(atPath: mine.path) ? "keeps this profile's artwork (the archive has none)" : nil
        }
        guard FileManager.default.fileExists(atPath: mine.path) else { return "takes the archive's artwork (this profile has none)" }
        let (kept, taken) = try ImportMerge.intoStaged(staged, attaching: mine) { db -> (Int, Int) in
            let taken = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM main.blob s WHERE NOT EXISTS (SELECT 1 FROM mine.blob m WHERE m.bucket = s.bucket AND m.name = s.name)
                """) ?? 0
            try db.execute(sql: """
                UPDATE main.blob SET accessedAt = (SELECT max(m.accessedAt) FROM mine.blob m WHERE m.bucket = main.blob.bucket AND m.name = main.blob.name)
                WHERE EXISTS (SELECT 1 FROM mine.blob m WHERE m.bucket = main.blob.bucket AND m.name = main.blob.name AND m.accessedAt > main.blob.accessedAt)
                """)
            // The profile's files stay where they are (the swap only adds); the index names them.
            try db.execute(sql: """
                INSERT INTO main.blob (bucket, name, identifier, size, checksum, accessedAt)
                SELECT bucket, name, identifier, size, checksum, accessedAt FROM mine.blob WHERE true
                ON CONFLICT (bucket, name) DO NOTHING
                """)
            return (db.changesCount, taken)
        }
        guard taken > 0 else { return "keeps this profile's artwork (\(Format.count(kept, "image")) the archive lacks)" }
        return "adds the archive's \(Format.count(taken, "image")) of artwork not here to this profile's\(kept == 0 ? "" : " (\(Format.count(kept, "image")) only here)")"
            + "; over the artwork cap, the least recently used go first"
    }

    /// The stored section's title, album count and when the server last confirmed it.
    private static func storeSummary(_ url: URL) throws -> (described: String, checkedAt: Date)? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let rows = try SQLiteQuery.rows(url, [("SELECT sectionTitle, checkedAt, (SELECT count(*) FROM album) FROM snapshot WHERE id = 1", [])])[0]
        guard let row = rows.first, let title = row[0].text, let checked = row[1].double, let albums = row[2].integer else { return nil }
        return ("\(Format.count(albums, "album")) of “\(title)”", Date(timeIntervalSince1970: checked))
    }
}
