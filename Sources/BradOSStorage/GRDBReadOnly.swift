import Foundation
import GRDB

/// Read-only SQLite access for code outside a domain's own store (completion, stats, import
/// checks, export backups): never writes, and never runs code from a database's schema.
package enum GRDBReadOnly {
    package static func configuration(busyTimeout: TimeInterval = 1) -> Configuration {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(busyTimeout)
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA trusted_schema = OFF") }
        return config
    }

    package static func open(_ url: URL, busyTimeout: TimeInterval = 1) throws -> DatabaseQueue {
        try DatabaseQueue(path: url.path, configuration: configuration(busyTimeout: busyTimeout))
    }

    package static func strings(_ sql: String, at url: URL) throws -> [String] {
        try open(url).read { try String.fetchAll($0, sql: sql) }
    }
}
