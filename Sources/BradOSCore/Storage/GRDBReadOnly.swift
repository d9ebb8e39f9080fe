import Foundation
import GRDB

/// Small read-only SQLite reads for code outside a domain's own store (completion, stats).
enum GRDBReadOnly {
    static func configuration() -> Configuration {
        var config = Configuration()
        config.readonly = true
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA trusted_schema = OFF") }
        return config
    }

    static func strings(_ sql: String, at url: URL, configuration: Configuration) throws -> [String] {
        try DatabaseQueue(path: url.path, configuration: configuration).read { try String.fetchAll($0, sql: sql) }
    }
}
