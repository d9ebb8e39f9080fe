import Foundation
import GRDB
import Testing
import TestSupport
@testable import BradOSStorage

/// How much a power cut may take from each database: `FULL` for what a command acknowledged,
/// `NORMAL` only for a WAL database of what is fetched again (reliability/power_loss.py shows
/// a coach deletion lost at a cut beside a running `sync --watch` when the writer ran `NORMAL`).
@Suite("SQLite durability by what a database holds")
struct SQLiteDurabilityTests {
    let folder = TemporaryDirectory("sqlite-durability")

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { try $0.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY)") }
        return migrator
    }

    /// `PRAGMA synchronous` of the connection that commits: 1 NORMAL, 2 FULL.
    static func synchronous(_ writer: some DatabaseWriter) throws -> Int {
        try writer.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") ?? -1 }
    }

    @Test("a WAL pool's writer commits with FULL for acknowledged data, though GRDB sets NORMAL when it switches to WAL")
    func acknowledgedIsFull() throws {
        let pool = try SQLiteStore.open(folder.path("own.sqlite"), contents: .acknowledged, migrator: Self.migrator)
        #expect(try Self.synchronous(pool) == 2)
        try pool.write { try $0.execute(sql: "INSERT INTO item DEFAULT VALUES") }
        #expect(try Self.synchronous(pool) == 2, "the setting outlives a transaction")
    }

    @Test("what is fetched again stays NORMAL in WAL; a rollback journal is FULL whatever it holds")
    func fetchableIsNormal() throws {
        #expect(try Self.synchronous(try SQLiteStore.open(folder.path("cache.sqlite"), contents: .fetchable, migrator: Self.migrator)) == 1)
        #expect(try Self.synchronous(try SQLiteStore.openWithRollbackJournal(folder.path("rollback.sqlite"), migrator: Self.migrator)) == 2)
    }
}
