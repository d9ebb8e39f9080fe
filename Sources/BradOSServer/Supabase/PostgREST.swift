import Foundation
import GRDB
import HTTPTypes
import Hummingbird

/// A small PostgREST: reads and deletes on one table, with the query language Supabase's
/// clients send — `select=*` or a column list, filters `col=op.value` (`eq`, `neq`, `gt`,
/// `gte`, `lt`, `lte`, `like`, `ilike`, `is`, `in`), `order=col.asc|desc[.nullsfirst|.nullslast]`,
/// `limit`/`offset` or `Range`/`Range-Unit: items`, `Prefer: count=exact`, `Content-Range`
/// in every answer, `Accept: application/vnd.pgrst.object+json` for one object, and
/// `Prefer: return=representation` on DELETE. Rows are only ever those of the signed-in
/// user (row-level security in spirit); the anon role sees none. At most ``maxRows`` rows
/// per response, as `db-max-rows` does.
struct PostgRESTTable: Sendable {
    enum ColumnType: Sendable, Equatable {
        case text, integer, timestamp, json, boolean
        /// `child(count)` in `select`: the number of rows of `table` whose `foreignKey` is this row's `id`,
        /// answered as PostgREST does, `"child": [{"count": N}]`.
        case embeddedCount(table: String, foreignKey: String)
    }

    let name: String
    /// Columns in `select=*` order.
    let columns: [(name: String, type: ColumnType)]
    /// The column holding the owner's user id.
    let owner: String
    /// The order when the request names none (stable: ends with the primary key).
    let defaultOrder: String
    var maxRows = 1000
    /// Tables whose rows point at this one's `id` (`select=*,messages(count)`): name → foreign key.
    var children: [String: String] = [:]

    func type(of column: String) -> ColumnType? { columns.first { $0.name == column }?.type }

    /// A PostgREST error answer.
    static func error(_ status: HTTPResponse.Status, code: String, message: String, details: String? = nil, hint: String? = nil) -> Response {
        let body: [String: Any] = ["code": code, "message": message, "details": details ?? NSNull(), "hint": hint ?? NSNull()]
        return (try? SupabaseAuthRoutes.json(body, status: status)) ?? Response(status: status)
    }

    struct Failure: Error { let response: Response }

    /// The WHERE clause (owner first) and its arguments, from the request's filters.
    func whereClause(_ request: Request, userID: String?) throws -> (sql: String, arguments: StatementArguments) {
        guard let userID else { return ("0", []) } // anon: row-level security hides every row
        var clauses = ["\"\(owner)\" = ?"]
        var arguments: StatementArguments = [userID]
        let reserved: Set<String> = ["select", "order", "limit", "offset", "apikey", "columns", "on_conflict"]
        for (rawKey, rawValue) in request.uri.queryParameters {
            let key = String(rawKey).removingPercentEncoding ?? String(rawKey)
            guard !reserved.contains(key) else { continue }
            guard let type = type(of: key) else {
                throw Failure(response: Self.error(.badRequest, code: "42703", message: "column \(name).\(key) does not exist"))
            }
            let value = String(rawValue)
            guard let dot = value.firstIndex(of: ".") else {
                throw Failure(response: Self.error(.badRequest, code: "PGRST100", message: "\"failed to parse filter (\(value))\" (line 1, column 1)"))
            }
            var op = String(value[..<dot])
            var operand = String(value[value.index(after: dot)...])
            var negate = false
            if op == "not", let next = operand.firstIndex(of: ".") {
                negate = true
                op = String(operand[..<next])
                operand = String(operand[operand.index(after: next)...])
            }
            let column = "\"\(key)\""
            var clause: String
            switch op {
            case "eq", "neq", "gt", "gte", "lt", "lte":
                let sqlOp = ["eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="][op]!
                if type == .timestamp {
                    // Postgres keeps microseconds; the REAL column holds float noise below them, so
                    // compare whole microseconds (else `gte` a value the server itself sent can miss
                    // that row): round(c·10⁶) ≥ M ⟺ c ≥ (M − ½)/10⁶, and so on, which keeps the index usable.
                    let micros = Double(Int64(((try Self.bind(operand, type, column: key) as? Double ?? 0) * 1_000_000).rounded()))
                    let below = (micros - 0.5) / 1_000_000, above = (micros + 0.5) / 1_000_000
                    switch op {
                    case "eq": clause = "(\(column) >= ? AND \(column) < ?)"; arguments += [below, above]
                    case "neq": clause = "(\(column) < ? OR \(column) >= ?)"; arguments += [below, above]
                    case "gt": clause = "\(column) >= ?"; arguments += [above]
                    case "gte": clause = "\(column) >= ?"; arguments += [below]
                    case "lt": clause = "\(column) < ?"; arguments += [below]
                    default: clause = "\(column) < ?"; arguments += [above] // lte
                    }
                } else {
                    clause = "\(column) \(sqlOp) ?"
                    arguments += [try Self.bind(operand, type, column: key)]
                }
            case "like", "ilike":
                clause = op == "like" ? "\(column) GLOB ?" : "\(column) LIKE ?"
                arguments += [op == "like" ? operand.replacingOccurrences(of: "%", with: "*") : operand.replacingOccurrences(of: "*", with: "%")]
            case "is":
                switch operand.lowercased() {
                case "null": clause = "\(column) IS NULL"
                case "true": clause = "\(column) = 1"
                case "false": clause = "\(column) = 0"
                default: throw Failure(response: Self.error(.badRequest, code: "PGRST100", message: "\"failed to parse filter (is.\(operand))\""))
                }
            case "in":
                guard operand.hasPrefix("("), operand.hasSuffix(")") else {
                    throw Failure(response: Self.error(.badRequest, code: "PGRST100", message: "\"failed to parse filter (in.\(operand))\""))
                }
                let items = operand.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false)
                    .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
                clause = items.isEmpty ? "0" : "\(column) IN (\(items.map { _ in "?" }.joined(separator: ", ")))"
                for item in items { arguments += [try Self.bind(item, type, column: key)] }
            default:
                throw Failure(response: Self.error(.badRequest, code: "PGRST100", message: "\"failed to parse filter (\(value))\" (line 1, column 1)"))
            }
            if negate { clause = "NOT (\(clause))" }
            clauses.append(clause)
        }
        return (clauses.joined(separator: " AND "), arguments)
    }

    static func bind(_ text: String, _ type: ColumnType, column: String) throws -> (any DatabaseValueConvertible)? {
        switch type {
        case .text, .json, .embeddedCount: return text // an embedded count is never a filter's column
        case .integer:
            guard let value = Int64(text) else {
                throw Failure(response: error(.badRequest, code: "22P02", message: "invalid input syntax for type bigint: \"\(text)\""))
            }
            return value
        case .boolean: return text == "true" ? 1 : 0
        case .timestamp:
            guard let date = SupabaseTimestamp.parse(text) else {
                throw Failure(response: error(.badRequest, code: "22007", message: "invalid input syntax for type timestamp with time zone: \"\(text)\""))
            }
            return date.timeIntervalSince1970
        }
    }

    /// `ORDER BY` from `order=` (default order otherwise), always ending with the default for stability.
    func orderClause(_ request: Request) throws -> String {
        guard let text = request.uri.queryParameters["order"].map(String.init), !text.isEmpty else { return defaultOrder }
        var terms: [String] = []
        for part in text.split(separator: ",") {
            let pieces = part.split(separator: ".").map(String.init)
            guard let column = pieces.first, type(of: column) != nil else {
                throw Failure(response: Self.error(.badRequest, code: "42703", message: "column \(name).\(pieces.first ?? "") does not exist"))
            }
            var term = "\"\(column)\""
            for modifier in pieces.dropFirst() {
                switch modifier {
                case "asc": term += " ASC"
                case "desc": term += " DESC"
                case "nullsfirst": term += " NULLS FIRST"
                case "nullslast": term += " NULLS LAST"
                default: throw Failure(response: Self.error(.badRequest, code: "PGRST100", message: "\"failed to parse order (\(text))\""))
                }
            }
            terms.append(term)
        }
        return (terms + [defaultOrder]).joined(separator: ", ")
    }

    /// The columns of `select=` (all for `*`).
    func selectedColumns(_ request: Request) throws -> [(name: String, type: ColumnType)] {
        guard let text = request.uri.queryParameters["select"].map(String.init), !text.isEmpty, text != "*" else { return columns }
        return try text.split(separator: ",").flatMap { raw -> [(name: String, type: ColumnType)] in
            let name = raw.trimmingCharacters(in: .whitespaces)
            if name == "*" { return columns }
            if name.contains("(") {
                // Only the count of a child table is embedded (`messages(count)`), as the clients use it.
                guard name.hasSuffix("(count)"), let child = name.split(separator: "(").first.map(String.init), let key = children[child] else {
                    throw Failure(response: Self.error(.badRequest, code: "PGRST200", message: "Could not find a relationship in the schema cache",
                                                       hint: "The reference server embeds only child(count)."))
                }
                return [(child, .embeddedCount(table: child, foreignKey: key))]
            }
            guard let type = type(of: name) else {
                throw Failure(response: Self.error(.badRequest, code: "42703", message: "column \(self.name).\(name) does not exist"))
            }
            return [(name, type)]
        }
    }

    /// A selected column as SQL: the column, or the subquery an embedded count is.
    func sql(_ column: (name: String, type: ColumnType)) -> String {
        if case .embeddedCount(let table, let key) = column.type {
            return "(SELECT COUNT(*) FROM \"\(table)\" WHERE \"\(table)\".\"\(key)\" = \"\(name)\".\"id\") AS \"\(column.name)\""
        }
        return "\"\(column.name)\""
    }

    /// The rows asked for: offset and count from `offset`/`limit` or `Range`, capped at `maxRows`.
    /// Total over every header and query value: huge, negative or malformed numbers are a 416
    /// or a 400, never a trap.
    func window(_ request: Request) throws -> (offset: Int, limit: Int?) {
        let query = request.uri.queryParameters
        func number(_ name: String) throws -> Int? {
            guard let text = query[Substring(name)] else { return nil }
            guard let value = Int(text), value >= 0 else {
                throw Failure(response: Self.error(.badRequest, code: "PGRST103", message: "\(name) must be a non-negative integer"))
            }
            return value
        }
        var offset = try number("offset") ?? 0
        var limit = try number("limit")
        if let range = request.headers[.range] {
            let bounds = range.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let start = Int(bounds[0]), start >= 0 else {
                throw Failure(response: Self.error(.rangeNotSatisfiable, code: "PGRST103", message: "Requested range not satisfiable"))
            }
            offset = max(offset, start)
            if let end = Int(bounds[1]) {
                guard end >= start else {
                    throw Failure(response: Self.error(.rangeNotSatisfiable, code: "PGRST103", message: "Requested range not satisfiable"))
                }
                // end >= start >= 0, so end - start cannot overflow; + 1 can (0-Int.max).
                let (count, overflow) = (end - start).addingReportingOverflow(1)
                limit = Swift.min(limit ?? Int.max, overflow ? Int.max : count)
            }
        }
        return (offset, Swift.min(limit ?? maxRows, maxRows))
    }

    /// Answers a GET.
    func select(_ request: Request, userID: String?, db: Database) throws -> Response {
        let selected = try selectedColumns(request)
        let (whereSQL, arguments) = try whereClause(request, userID: userID)
        let order = try orderClause(request)
        let (offset, limit) = try window(request)
        let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(name)\" WHERE \(whereSQL)", arguments: arguments) ?? 0
        let wantsCount = (request.headers[.prefer] ?? "").contains("count=exact")
        if offset > 0, offset >= total, wantsCount || request.headers[.range] != nil {
            var response = Self.error(.rangeNotSatisfiable, code: "PGRST103", message: "Requested range not satisfiable",
                                      details: "An offset of \(offset) was requested, but there are only \(total) rows.")
            response.headers[.contentRange] = "*/\(total)"
            return response
        }
        let columnList = selected.map(sql).joined(separator: ", ")
        let rows = try Row.fetchAll(db, sql: "SELECT \(columnList) FROM \"\(name)\" WHERE \(whereSQL) ORDER BY \(order) LIMIT ? OFFSET ?",
                                    arguments: arguments + [limit ?? maxRows, offset])
        let objects = rows.map { encode($0, selected) }
        let range = objects.isEmpty ? "*" : "\(offset)-\(offset.addingReportingOverflow(objects.count - 1).partialValue)"
        var headers: HTTPFields = [.contentRange: "\(range)/\(wantsCount ? String(total) : "*")"]
        if (request.headers[.accept] ?? "").contains("application/vnd.pgrst.object+json") {
            guard objects.count == 1 else {
                return Self.error(.notAcceptable, code: "PGRST116", message: "JSON object requested, multiple (or no) rows returned",
                                  details: "The result contains \(objects.count) rows")
            }
            headers[.contentType] = "application/vnd.pgrst.object+json; charset=utf-8"
            return try SupabaseAuthRoutes.json(objects[0], headers: headers)
        }
        let partial = wantsCount && offset + objects.count < total
        return try SupabaseAuthRoutes.json(objects, status: partial ? .partialContent : .ok, headers: headers)
    }

    /// Answers a DELETE (filters required, as Supabase's safeupdate demands).
    func delete(_ request: Request, userID: String?, db: Database) throws -> Response {
        let filters = request.uri.queryParameters.filter { !["select", "order", "limit", "offset", "apikey", "columns"].contains(String($0.key)) }
        guard !filters.isEmpty else {
            return Self.error(.badRequest, code: "21000", message: "DELETE requires a WHERE clause")
        }
        let (whereSQL, arguments) = try whereClause(request, userID: userID)
        let selected = try selectedColumns(request)
        let columnList = selected.map(sql).joined(separator: ", ")
        let rows = try Row.fetchAll(db, sql: "SELECT \(columnList) FROM \"\(name)\" WHERE \(whereSQL) ORDER BY \(defaultOrder)", arguments: arguments)
        try db.execute(sql: "DELETE FROM \"\(name)\" WHERE \(whereSQL)", arguments: arguments)
        let headers: HTTPFields = [.contentRange: "*/\(rows.count)"]
        if (request.headers[.prefer] ?? "").contains("return=representation") {
            return try SupabaseAuthRoutes.json(rows.map { encode($0, selected) }, headers: headers)
        }
        return Response(status: .noContent, headers: headers)
    }

    func encode(_ row: Row, _ selected: [(name: String, type: ColumnType)]) -> [String: Any] {
        var object: [String: Any] = [:]
        for column in selected {
            let value = row[column.name] as DatabaseValue
            if value.isNull { object[column.name] = NSNull(); continue }
            switch column.type {
            case .text: object[column.name] = String.fromDatabaseValue(value) ?? ""
            case .integer: object[column.name] = Int64.fromDatabaseValue(value) ?? 0
            case .boolean: object[column.name] = (Int64.fromDatabaseValue(value) ?? 0) != 0
            case .timestamp:
                object[column.name] = SupabaseAuthRoutes.timestamp(Date(timeIntervalSince1970: Double.fromDatabaseValue(value) ?? 0))
            case .embeddedCount:
                object[column.name] = [["count": Int64.fromDatabaseValue(value) ?? 0]]
            case .json:
                let text = String.fromDatabaseValue(value) ?? "null"
                object[column.name] = (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) ?? NSNull()
            }
        }
        return object
    }
}

/// Parses the timestamps PostgREST filters receive: ISO 8601 with or without fractional
/// seconds (any number of digits) and with `Z` or an offset.
enum SupabaseTimestamp {
    static func parse(_ text: String) -> Date? {
        var text = text.replacingOccurrences(of: " ", with: "T")
        // Normalise the fraction to milliseconds, which the ISO-8601 parser accepts.
        if let dot = text.firstIndex(of: ".") {
            let afterDot = text.index(after: dot)
            let end = text[afterDot...].firstIndex { !$0.isNumber } ?? text.endIndex
            let digits = String(text[afterDot..<end])
            let micros = Double("0." + (digits.isEmpty ? "0" : digits)) ?? 0
            text.replaceSubrange(dot..<end, with: "")
            guard let whole = parse(text) else { return nil }
            return whole.addingTimeInterval(micros)
        }
        if text.hasSuffix("+00") { text += ":00" }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}

extension HTTPField.Name {
    static let prefer = HTTPField.Name("Prefer")!
    static let apikey = HTTPField.Name("apikey")!
}

/// The reference server's request parsing, for the fuzzer (reliability/fuzz.py, target
/// `server`): the PostgREST query language (filters, `select`, `order`, `limit`/`offset`) and
/// the `Range` and `Prefer` headers, on every table. Any input must give an answer or a 4xx
/// `Failure`, never a trap.
public enum ServerRequestParsing {
    /// Input: the first line is the request target (path and query); each following line is
    /// a header, `Name: value`.
    public static func check(_ text: String) {
        let lines = text.split(separator: "\n", maxSplits: 16, omittingEmptySubsequences: false)
        var fields = HTTPFields()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon]).trimmingCharacters(in: .whitespaces)) else { continue }
            fields.append(HTTPField(name: name, value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        let target = String(lines.first ?? "")
        let path = target.hasPrefix("/") ? target : "/" + target
        let request = Request(head: HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: path, headerFields: fields),
                              body: RequestBody(buffer: ByteBuffer()))
        for table in [CoachRoutes.conversations, CoachRoutes.messages, CoachRoutes.contextProfiles] {
            _ = try? table.window(request)
            _ = try? table.whereClause(request, userID: "8f5c2a64-0d7e-4a53-9d51-3f0c8d0b7a11")
            _ = try? table.orderClause(request)
            _ = try? table.selectedColumns(request)
        }
    }
}
