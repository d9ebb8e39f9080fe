import BradOSStorage
import BradOSTerminal
import Foundation
import GRDB

/// A domain whose `cache import --merge` keeps, item by item, the newer of the profile's data
/// and the archive's (by the domain's own time or version), and unions what is a history
/// (kept plans, the weight log): it rewrites the staged import to that merge before the
/// journaled swap moves it in, so the swap stays all or nothing and a dry run says the same.
/// A domain without it merges by file: the archive's files overwrite those at the same paths.
public protocol MergesByItem: DomainPlugin {
    /// Rewrites the staged import (`cache`, `data`: the staged folders, which may not exist)
    /// into the merge of it and `target`'s data.
    /// - Returns: what the merge keeps and replaces, one sentence each ("keeps this profile's
    ///   plan, received 2026-11-27, newer than the archive's"), for the report and `--dry-run`.
    /// - Throws: ``ArchiveError``, ``StorageError``; the profile is unchanged then.
    func mergeImport(cache: URL, data: URL, into target: ProfileScope) throws -> [String]
}

/// The file-level steps of a ``MergesByItem`` merge.
public enum ImportMerge {
    /// Puts the profile's file in place of the staged one (so the swap leaves the profile's
    /// as it is): the profile's copy is the newer.
    /// - Throws: ``StorageError``.
    public static func keepProfile(_ profileFile: URL, over staged: URL) throws {
        guard let data = try AtomicFile.readIfPresent(profileFile) else { return }
        try AtomicFile.write(data, to: staged)
    }

    /// Runs `body` in one transaction on the staged database at `staged`, with the profile's
    /// database at `profile` attached as `mine` (read there, written nowhere): a row-by-row
    /// merge into the staged copy. Either both are whole after it or the staged one is as it was.
    /// - Throws: ``StorageError``; what `body` throws.
    public static func intoStaged<T>(_ staged: URL, attaching profile: URL, _ body: (Database) throws -> T) throws -> T {
        try SQLiteStore.mapErrors(at: staged.path) {
            let queue = try DatabaseQueue(path: staged.path)
            defer { try? queue.close() }
            return try queue.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS mine", arguments: [profile.path])
                defer { try? db.execute(sql: "DETACH DATABASE mine") }
                var result: T?
                try db.inTransaction {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        }
    }

    /// "2026-11-27 18:30" in the person's zone, for a merge's sentences.
    public static func when(_ date: Date) -> String { Format.minute(date) }
}
