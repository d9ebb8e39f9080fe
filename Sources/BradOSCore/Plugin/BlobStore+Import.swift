import BradOSStorage
import BradOSTerminal
import Foundation
import GRDB

// The check of an imported artwork index against the blob cache's schema.
extension BlobStore {
    /// Rebuilds an imported `index.sqlite` (see ``SQLiteRebuild``): the schema must be the
    /// cache's own, and every row a plain bucket and name, a size, a checksum and a time. The
    /// running total is not copied: the fresh database's triggers count the copied rows.
    /// - Throws: ``ArchiveError/unsafeEntry(path:reason:)``.
    public static func rebuildImported(_ url: URL, label: String) throws {
        try SQLiteRebuild.rebuild(url, label: label, migrator: migrator, tables: [
            SQLiteRebuild.Table("blob", columns: ["bucket", "name", "identifier", "size", "checksum", "accessedAt"]) { values throws(SQLiteRebuild.RowProblem) in
                guard case let .string(bucket) = values[0].storage, case let .string(name) = values[1].storage, isSafe(bucket: bucket, name: name) else {
                    throw SQLiteRebuild.RowProblem("bucket and name are not a plain folder and a SHA-256")
                }
                try ColumnCheck.text(values[2], "identifier")
                try ColumnCheck.integer(values[3], "size")
                try ColumnCheck.text(values[4], "checksum")
                try ColumnCheck.time(values[5], "accessedAt")
            },
        ])
    }
}
