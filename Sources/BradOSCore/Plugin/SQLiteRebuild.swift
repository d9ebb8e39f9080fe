import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
#endif

/// Rebuilds an SQLite database that came from outside (an imported archive) instead of
/// trusting it as a file.
///
/// `PRAGMA trusted_schema = OFF` does not stop triggers, and a database file carries its whole
/// schema: a trigger that drops the artwork cache's size accounting, rewrites every message
/// fetched later or ignores deletes; views; extra tables; a `message` table with other columns.
/// So an imported database is never moved into place as it arrived:
///
/// 1. the archive's copy is opened read-only and must pass `PRAGMA quick_check`;
/// 2. its schema (`sqlite_master`: every table, index, trigger and view, and GRDB's list of
///    applied migrations) must be exactly what the domain's own migrations create, or it is
///    refused with the difference named;
/// 3. a fresh database is created with those migrations, and rows are copied by explicit
///    column lists, each value checked the way the domain's decoders check it;
/// 4. the fresh database replaces the archive's copy in the staging folder (the archive's
///    copy never reaches the profile).
public enum SQLiteRebuild {
    /// One table to copy: its columns, and a check of each row's values (in `columns` order).
    public struct Table: Sendable {
        public var name: String
        public var columns: [String]
        public var check: @Sendable (_ values: [DatabaseValue]) throws(RowProblem) -> Void

        public init(_ name: String, columns: [String], check: @escaping @Sendable (_ values: [DatabaseValue]) throws(RowProblem) -> Void) {
            self.name = name
            self.columns = columns
            self.check = check
        }
    }

    /// Why a row was refused.
    public struct RowProblem: Error, Sendable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    /// Tables SQLite itself may add (statistics from ANALYZE / PRAGMA optimize): allowed in the
    /// archive's copy, never copied.
    static func isInternal(_ name: String) -> Bool { name.hasPrefix("sqlite_stat") || name == "sqlite_sequence" }

    /// Rebuilds the database at `url` (in a staging folder) in place.
    /// - Parameters:
    ///   - label: how messages name it (`coach/coach.sqlite`).
    ///   - migrator: the domain's migrations, exactly as its store runs them.
    ///   - tables: the tables to copy, parents before children (foreign keys are enforced).
    /// - Throws: ``ArchiveError/unsafeEntry(path:reason:)`` with the reason; `url` is then
    ///   left as it was (the import stops, and its staging folder is removed).
    public static func rebuild(_ url: URL, label: String, migrator: DatabaseMigrator, tables: [Table]) throws {
        func refuse(_ reason: String) -> ArchiveError { .unsafeEntry(path: label, reason: reason) }
        for suffix in SQLiteStore.sidecarSuffixes where FileManager.default.fileExists(atPath: url.path + suffix) {
            throw refuse("it comes with a \(suffix) file")
        }
        let archived: DatabaseQueue
        do {
            archived = try GRDBReadOnly.open(url)
            guard try archived.read({ try String.fetchOne($0, sql: "PRAGMA quick_check") }) == "ok" else { throw refuse("it is not a sound SQLite database") }
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw refuse("it is not a sound SQLite database")
        }

        let fresh = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).rebuilt")
        try? FileSystem.remove(fresh)
        close(open(fresh.path, O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, 0o600))
        var kept = false
        defer { if !kept { unlink(fresh.path); unlink(fresh.path + "-journal") } }
        do {
            var configuration = Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA trusted_schema = OFF") }
            let target = try DatabaseQueue(path: fresh.path, configuration: configuration)
            // An archive from an older brados records the first migrations only: the fresh
            // database is made up to the same one, compared and filled, then migrated the rest
            // of the way (so older backups still import).
            let applied = (try? archived.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }) ?? []
            let known = Array(migrator.migrations.prefix(applied.count))
            guard let last = known.last, Set(known) == Set(applied), known.count == applied.count else {
                throw refuse("it records other migrations (\(applied.joined(separator: ", ")))")
            }
            try migrator.migrate(target, upTo: last)

            let expected = try schema(target)
            let found = try archived.read { try schema($0) }.filter { !isInternal($0.name) }
            if let difference = describe(expected: expected, found: found) { throw refuse("its schema is not the one brados creates (\(difference))") }

            try archived.read { source in
                try target.write { destination in
                    for table in tables {
                        let list = table.columns.map { "\"\($0)\"" }.joined(separator: ", ")
                        let insert = try destination.makeStatement(
                            sql: "INSERT INTO \"\(table.name)\" (\(list)) VALUES (\(table.columns.map { _ in "?" }.joined(separator: ", ")))")
                        let rows = try Row.fetchCursor(source, sql: "SELECT \(list) FROM \"\(table.name)\"")
                        var index = 0
                        while let row = try rows.next() {
                            index += 1
                            let values = (0..<table.columns.count).map { row[$0] as DatabaseValue }
                            do { try table.check(values) } catch {
                                throw refuse("row \(index) of \(table.name): \((error as? RowProblem)?.reason ?? "\(error)")")
                            }
                            do { try insert.execute(arguments: StatementArguments(values)) } catch let error as DatabaseError {
                                throw refuse("row \(index) of \(table.name) breaks a constraint (\(error.message ?? "\(error.resultCode)"))")
                            }
                        }
                    }
                    if let broken = try Row.fetchOne(destination, sql: "PRAGMA foreign_key_check") {
                        throw refuse("a row of \(broken[0] as String? ?? "a table") points to a missing row")
                    }
                }
            }
            try migrator.migrate(target)
            // A store keeping search revisions gets an identity of its own (the index reads it
            // all again), the same for every import of the same archive.
            let archivedStamp = try? archived.read { try SearchRevision.stamp($0) }
            try target.write { db in
                if try db.tableExists("searchRevision") { try SearchRevision.markImported(db, archived: archivedStamp) }
            }
            try target.close()
            try archived.close()
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw refuse("it could not be rebuilt (\(error))")
        }
        // Reading may have left the archive copy's sidecars: they never meet the fresh database.
        for suffix in SQLiteStore.sidecarSuffixes { unlink(url.path + suffix); unlink(fresh.path + suffix) }
        guard rename(fresh.path, url.path) == 0 else { throw StorageError.io(operation: "rename", path: fresh.path, errno: errno) }
        kept = true
    }

    struct SchemaEntry: Hashable {
        var type: String
        var name: String
        var table: String
        var sql: String?
    }

    static func schema(_ db: any DatabaseReader) throws -> [SchemaEntry] { try db.read { try schema($0) } }

    static func schema(_ db: Database) throws -> [SchemaEntry] {
        try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").map {
            SchemaEntry(type: $0[0], name: $0[1], table: $0[2], sql: $0[3])
        }
    }

    /// `nil` when the same; otherwise the first few differences, named.
    static func describe(expected: [SchemaEntry], found: [SchemaEntry]) -> String? {
        let expectedSet = Set(expected), foundSet = Set(found)
        guard expectedSet != foundSet else { return nil }
        let byName = Dictionary(expected.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var parts: [String] = []
        for entry in found where !expectedSet.contains(entry) {
            parts.append(byName[entry.name] != nil ? "\(entry.type) '\(entry.name)' is defined differently" : "an extra \(entry.type) '\(entry.name)'")
        }
        let foundNames = Set(found.map(\.name))
        for entry in expected where !foundNames.contains(entry.name) { parts.append("no \(entry.type) '\(entry.name)'") }
        return SafeText.visible(parts.prefix(4).joined(separator: "; "))
    }
}

/// Checks of single SQLite values, for ``SQLiteRebuild/Table`` row checks.
public enum ColumnCheck {
    public typealias Problem = SQLiteRebuild.RowProblem

    /// Text; with a rule, an id of that kind.
    /// - Throws: ``SQLiteRebuild/RowProblem`` naming `column` when the value is not text (NULL allowed with `nullable`)
    ///   or not an id of `rule`.
    public static func text(_ value: DatabaseValue, _ column: String, rule: IdentifierRule? = nil, nullable: Bool = false) throws(Problem) {
        switch value.storage {
        case .null where nullable: return
        case let .string(text):
            if let rule, !rule.isValid(text) { throw Problem("\(column): \(InvalidIdentifier(rule: rule, value: text))") }
        default: throw Problem("\(column) is not text")
        }
    }

    /// A finite number (SQLite stores whole REALs as integers sometimes).
    /// - Throws: ``SQLiteRebuild/RowProblem`` naming `column` when the value is not a finite number (NULL allowed with
    ///   `nullable`).
    public static func real(_ value: DatabaseValue, _ column: String, nullable: Bool = false) throws(Problem) {
        switch value.storage {
        case .null where nullable: return
        case .int64: return
        case let .double(number) where number.isFinite: return
        default: throw Problem("\(column) is not a number")
        }
    }

    /// A time in Unix seconds between 1970 and the year 9999 (a date brados can show and count an age from).
    /// - Throws: ``SQLiteRebuild/RowProblem`` naming `column` when the value is not such a number (NULL allowed with `nullable`).
    public static func time(_ value: DatabaseValue, _ column: String, nullable: Bool = false) throws(Problem) {
        try real(value, column, nullable: nullable)
        if let seconds = Double.fromDatabaseValue(value), !(0...253_402_300_799).contains(seconds) {
            throw Problem("\(column) is not a time between 1970 and 9999")
        }
    }

    /// An integer in `range`.
    /// - Throws: ``SQLiteRebuild/RowProblem`` naming `column` when the value is not an integer in `range` (NULL allowed
    ///   with `nullable`).
    public static func integer(_ value: DatabaseValue, _ column: String, in range: ClosedRange<Int64> = 0...Int64.max, nullable: Bool = false) throws(Problem) {
        if nullable, value.isNull { return }
        guard case let .int64(number) = value.storage, range.contains(number) else { throw Problem("\(column) is not an integer in \(range)") }
    }

    /// Text holding JSON that decodes as `type`.
    /// - Throws: ``SQLiteRebuild/RowProblem`` naming `column` when the value is not text that decodes as `type`.
    public static func json<T: Decodable>(_ value: DatabaseValue, _ column: String, as type: T.Type) throws(Problem) {
        guard case let .string(text) = value.storage, (try? JSONCoding.decode(T.self, from: Data(text.utf8))) != nil else {
            throw Problem("\(column) is not the JSON brados writes")
        }
    }
}
