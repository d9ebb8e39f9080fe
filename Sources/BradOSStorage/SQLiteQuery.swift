import Foundation
import GRDBSQLite

/// One read-only query against an existing database through SQLite's C API alone: for a
/// screen that reads a row or two of a store it does not otherwise touch (`brados today`),
/// where opening a GRDB queue (its dispatch queue, authorizer and set-up) would cost more
/// than the read.
public enum SQLiteQuery {
    /// A column's value.
    public enum Value: Sendable, Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)

        public var text: String? { if case let .text(value) = self { value } else { nil } }
        public var double: Double? {
            switch self {
            case let .real(value): value
            case let .integer(value): Double(value)
            default: nil
            }
        }
        public var integer: Int? {
            switch self {
            case let .integer(value): Int(value)
            case let .real(value): Int(value)
            default: nil
            }
        }
    }

    /// A statement SQLite refused or stopped: its primary result code and message.
    public struct Failure: Error, Sendable {
        public var code: Int32
        public var message: String
    }

    /// Runs each statement with its text arguments (`nil`: NULL) on one read-only connection,
    /// in one read transaction; returns each statement's rows.
    /// - Throws: ``StorageError/database(path:detail:)``.
    public static func rows(_ url: URL, _ statements: [(sql: String, arguments: [String?])]) throws -> [[[Value]]] {
        do {
            return try run(url, statements.map { ($0.sql, $0.arguments.map { $0 as (any Sendable)? }) }, deadline: nil)
        } catch let failure as Failure {
            throw StorageError.database(path: url.path, detail: failure.message)
        }
    }

    /// ``rows(_:_:)`` with arguments of any type (`Int`, `String`, `nil`), stopped with
    /// `SQLITE_INTERRUPT` once `deadline` has passed.
    /// - Throws: ``Failure``.
    public static func run(_ url: URL, _ statements: [(sql: String, arguments: [(any Sendable)?])], deadline: Duration?) throws -> [[[Value]]] {
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        func failure(_ code: Int32) -> Failure {
            Failure(code: code & 0xff, message: connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code)))
        }
        let opened = sqlite3_open_v2(url.path, &connection, SQLITE_OPEN_READONLY, nil)
        guard opened == SQLITE_OK, let connection else { throw failure(opened) }
        // A writer's commit (a refresh of a rollback-journal store) is waited for.
        sqlite3_busy_timeout(connection, 5000)
        let end = Unmanaged.passRetained(DeadlineBox(ContinuousClock.now + (deadline ?? .seconds(86400))))
        defer {
            sqlite3_progress_handler(connection, 0, nil, nil)
            end.release()
        }
        if deadline != nil {
            sqlite3_progress_handler(connection, 10_000, { context in
                guard let context else { return 0 }
                return ContinuousClock.now > Unmanaged<DeadlineBox>.fromOpaque(context).takeUnretainedValue().end ? 1 : 0
            }, end.toOpaque())
        }
        let began = sqlite3_exec(connection, "PRAGMA trusted_schema = OFF; BEGIN", nil, nil, nil)
        guard began == SQLITE_OK else { throw failure(began) }
        defer { sqlite3_exec(connection, "COMMIT", nil, nil, nil) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        return try statements.map { sql, arguments in
            var statement: OpaquePointer?
            defer { sqlite3_finalize(statement) }
            let prepared = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
            guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
            for (index, argument) in arguments.enumerated() {
                let position = Int32(index + 1)
                let bound = switch argument {
                case nil: sqlite3_bind_null(statement, position)
                case let text as String: sqlite3_bind_text(statement, position, text, -1, transient)
                case let number as Int: sqlite3_bind_int64(statement, position, Int64(number))
                case let number as Int64: sqlite3_bind_int64(statement, position, number)
                case let number as Double: sqlite3_bind_double(statement, position, number)
                case let .some(other): preconditionFailure("SQLiteQuery binds String, Int, Int64, Double and nil, not \(type(of: other))")
                }
                guard bound == SQLITE_OK else { throw failure(bound) }
            }
            var rows: [[Value]] = []
            while true {
                let code = sqlite3_step(statement)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else { throw failure(code) }
                rows.append((0..<sqlite3_column_count(statement)).map { column in
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, column))
                    case SQLITE_FLOAT: .real(sqlite3_column_double(statement, column))
                    case SQLITE_NULL: .null
                    // By its length, not to its first NUL: a text may hold one (stored as a BLOB).
                    default: sqlite3_column_text(statement, column).map { text in
                        .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self))
                    } ?? .null
                    }
                })
            }
            return rows
        }
    }
}

/// The end of a query's time, handed to SQLite's progress handler.
final class DeadlineBox {
    let end: ContinuousClock.Instant
    init(_ end: ContinuousClock.Instant) { self.end = end }
}
