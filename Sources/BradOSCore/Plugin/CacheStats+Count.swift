import BradOSStorage
import Foundation
import GRDB

extension CacheStats {
    /// The number of rows `sql` counts in the SQLite database at `url`, read-only; `nil` when unreadable.
    public static func count(_ sql: String, in url: URL) -> Int? {
        guard FileSystem.exists(url) else { return nil }
        return try? GRDBReadOnly.open(url).read { try Int.fetchOne($0, sql: sql) }
    }
}
