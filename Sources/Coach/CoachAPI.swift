import BradOSCore
import BradOSNetworking
import Foundation

/// A conversation as the server has it, with the server's count of its messages
/// (`select=*,messages(count)`): what a refresh compares with its local copy.
public struct RemoteConversation: Sendable, Equatable {
    public var conversation: Conversation
    public var messageCount: Int

    public init(conversation: Conversation, messageCount: Int) {
        self.conversation = conversation
        self.messageCount = messageCount
    }
}

/// The coach's remote data, as PostgREST offers it: rows changed since a time (a filter on
/// `updated_at` / `created_at`), row counts (`Prefer: count=exact`), id-only listings and
/// rows by id. ``CoachRepository`` builds the delta refresh from these (`CoachRepository+Refresh.swift`).
/// The default is ``PostgRESTCoachClient``; tests inject doubles.
public protocol CoachAPI: Sendable {
    /// The user's conversations updated at or after `since` (every one for `nil`), oldest
    /// update first, ties by id.
    func conversations(userID: String, updatedSince since: Date?) async throws -> [Conversation]
    /// How many conversations the user has.
    func conversationCount(userID: String) async throws -> Int
    /// The id of every conversation of the user.
    func conversationIDs(userID: String) async throws -> Set<String>
    /// These conversations (ids the server does not have are left out).
    func conversations(ids: [String]) async throws -> [Conversation]
    /// One conversation and the number of its messages, or `nil` when the server has no such row (for this user).
    func conversation(id: String) async throws -> RemoteConversation?
    /// A conversation's messages created at or after `since` (every one for `nil`), oldest first, ties by id.
    func messages(conversationID: String, createdSince since: Date?) async throws -> [Message]
    /// The ids of a conversation's messages created in `range` (every one for ``TimeRange/all``).
    func messageIDs(conversationID: String, in range: TimeRange) async throws -> Set<String>
    /// How many messages of a conversation were created in `range`.
    func messageCount(conversationID: String, in range: TimeRange) async throws -> Int
    /// These messages (ids the server does not have are left out).
    func messages(ids: [String]) async throws -> [Message]
    /// Deletes a conversation (its messages go with it); `false` when the server has no such row.
    func deleteConversation(id: String) async throws -> Bool
    /// The user's context profile, if they have one.
    func contextProfile(userID: String) async throws -> ContextProfile?
    /// A conversation's messages edited at or after `since` (every edited one for `nil`), and
    /// the newest edit time among them; `nil` when the project's messages have no
    /// `updated_at` to ask by.
    func editedMessages(conversationID: String, since: Date?) async throws -> (messages: [Message], newest: Date?)?
}

extension CoachAPI {
    /// No edit times to ask by.
    public func editedMessages(conversationID: String, since: Date?) async throws -> (messages: [Message], newest: Date?)? { nil }
}

/// A message with the time it was last edited (`updated_at`).
struct EditedMessage: Decodable, Identifiable, Sendable {
    var message: Message
    var updatedAt: Date
    var id: String { message.id }

    enum CodingKeys: String, CodingKey { case updatedAt }

    init(from decoder: any Decoder) throws {
        message = try Message(from: decoder)
        updatedAt = try decoder.container(keyedBy: CodingKeys.self).decode(Date.self, forKey: .updatedAt)
    }
}

/// PostgREST over the core ``APIClient`` (retries, token renewal, error mapping).
///
/// Listings page by key, never by offset: each page asks for the rows at or after the last
/// page's last key (`updated_at=gte.T`, `id=gt.ID`), ordered by that key and the id. A row
/// that changes while the listing is read moves to a later key and is read later; an offset
/// would skip the row that slid into the place it left. `gte` rather than `gt` on times, with
/// rows already read dropped by id, means rows sharing a timestamp are never skipped.
public struct PostgRESTCoachClient: CoachAPI {
    public let client: APIClient
    public var pageSize: Int
    /// Reads have the local copy to fall back on, so they retry once, soon, instead of
    /// making an offline user wait through the full backoff.
    public var readPolicy: RetryPolicy

    public static let defaultReadPolicy = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(500))
    /// Ids per `id=in.(…)` request: 100 UUIDs keep the URL near 4 KB.
    static let idsPerRequest = 100
    static let messageColumns = "id,conversation_id,role,content,created_at"

    public init(client: APIClient, pageSize: Int = 500, readPolicy: RetryPolicy = defaultReadPolicy) {
        self.client = client
        self.pageSize = pageSize
        self.readPolicy = readPolicy
    }

    public func conversations(userID: String, updatedSince since: Date?) async throws -> [Conversation] {
        try await changed("conversations", select: "*", [("user_id", "eq.\(userID)")], column: "updated_at", since: since, key: \.updatedAt)
    }

    public func conversationCount(userID: String) async throws -> Int {
        try await count("conversations", [("user_id", "eq.\(userID)")])
    }

    public func conversationIDs(userID: String) async throws -> Set<String> {
        try await ids("conversations", [("user_id", "eq.\(userID)")])
    }

    public func conversations(ids: [String]) async throws -> [Conversation] {
        try await byID("conversations", select: "*", ids)
    }

    public func conversation(id: String) async throws -> RemoteConversation? {
        struct Row: Decodable {
            var conversation: Conversation
            var count: Int
            enum CodingKeys: String, CodingKey { case messages }
            struct Count: Decodable { var count: Int }
            init(from decoder: any Decoder) throws {
                conversation = try Conversation(from: decoder)
                count = try decoder.container(keyedBy: CodingKeys.self).decode([Count].self, forKey: .messages).first?.count ?? 0
            }
        }
        var request = APIRequest.get("/rest/v1/conversations", query: [("select", "*,messages(count)"), ("id", "eq.\(id)"), ("limit", "1")])
        request.retry = readPolicy
        let response = try await client.send(request)
        return try decode([Row].self, response.body, path: request.path).first.map { RemoteConversation(conversation: $0.conversation, messageCount: $0.count) }
    }

    public func messages(conversationID: String, createdSince since: Date?) async throws -> [Message] {
        try await changed("messages", select: Self.messageColumns, [("conversation_id", "eq.\(conversationID)")],
                          column: "created_at", since: since, key: \.createdAt)
    }

    public func editedMessages(conversationID: String, since: Date?) async throws -> (messages: [Message], newest: Date?)? {
        do {
            let rows: [EditedMessage] = try await changed("messages", select: Self.messageColumns + ",updated_at",
                                                          [("conversation_id", "eq.\(conversationID)"), ("updated_at", "not.is.null")],
                                                          column: "updated_at", since: since, key: \.updatedAt)
            return (rows.map(\.message), rows.map(\.updatedAt).max())
        } catch NetworkError.http(400, _, _, _, _) {
            return nil // PostgREST's "column does not exist": this project keeps no edit times
        }
    }

    public func messageIDs(conversationID: String, in range: TimeRange) async throws -> Set<String> {
        try await ids("messages", [("conversation_id", "eq.\(conversationID)")] + range.filters(on: "created_at"))
    }

    public func messageCount(conversationID: String, in range: TimeRange) async throws -> Int {
        try await count("messages", [("conversation_id", "eq.\(conversationID)")] + range.filters(on: "created_at"))
    }

    public func messages(ids: [String]) async throws -> [Message] {
        try await byID("messages", select: Self.messageColumns, ids)
    }

    public func deleteConversation(id: String) async throws -> Bool {
        let request = APIRequest(method: "DELETE", path: "/rest/v1/conversations", query: [("id", "eq.\(id)"), ("select", "id")],
                                 headers: [("Prefer", "return=representation")])
        // Retried like any request: a delete by filter is idempotent.
        let response = try await client.send(request)
        let rows = try decode([IDRow].self, response.body, path: request.path)
        return rows.contains { $0.id == id }
    }

    public func contextProfile(userID: String) async throws -> ContextProfile? {
        var request = APIRequest.get("/rest/v1/context_profiles", query: [("select", "*"), ("user_id", "eq.\(userID)"), ("limit", "1")])
        request.retry = readPolicy
        let response = try await client.send(request)
        return try decode([ContextProfile].self, response.body, path: request.path).first
    }

    // MARK: - Listings

    struct IDRow: Decodable, Identifiable { var id: String }

    /// The rows whose `column` is at or after `since` (all rows for `nil`), in key order.
    ///
    /// Pages go by key: the next page starts at the last row's time (`gte`). The first page is
    /// counted (`Prefer: count=exact`) and the listing ends once that many rows are in, or at
    /// an empty page; a short page is not the end, as a server may cap every answer below the
    /// page size asked for (`db-max-rows`). A row read twice (it changed meanwhile and moved to
    /// a later key) keeps its later copy. A page whose rows all share one time cannot move the
    /// key forward; that instant is then read whole by id (`column=eq.T`) and the listing goes
    /// on after it (`gt`).
    func changed<Row: Decodable & Identifiable & Sendable>(
        _ table: String, select: String, _ filters: [(name: String, value: String)], column: String, since: Date?, key: (Row) -> Date
    ) async throws -> [Row] where Row.ID == String {
        var rows: [Row] = []
        var positions: [String: Int] = [:]
        /// Adds or replaces a row; whether it was new.
        func keep(_ row: Row) -> Bool {
            if let position = positions[row.id] {
                rows[position] = row
                return false
            }
            positions[row.id] = rows.count
            rows.append(row)
            return true
        }
        var bound = since.map { (op: "gte", time: $0) }
        var total: Int?
        var counted = false
        while true {
            var query = filters + [("select", select), ("order", "\(column).asc,id.asc"), ("limit", "\(pageSize)")]
            if let bound { query.append((column, "\(bound.op).\(SupabaseJSON.timestamp(bound.time))")) }
            let (page, pageTotal): ([Row], Int?) = try await get(table, query, counted: !counted)
            if !counted { (total, counted) = (pageTotal, true) }
            let added = page.reduce(0) { $0 + (keep($1) ? 1 : 0) }
            guard let first = page.first, let last = page.last else { return rows }
            if let total, rows.count >= total { return rows }
            if total == nil, page.count < pageSize { return rows } // a server that does not count
            let time = key(last)
            if key(first) == time {
                // One instant fills the page: read it by id, then go on after it.
                for row in try await pagedByID(table, filters + [(column, "eq.\(SupabaseJSON.timestamp(time))")], select: select) as [Row] {
                    _ = keep(row)
                }
                bound = (op: "gt", time: time)
            } else if added == 0 {
                return rows // nothing new at a moving key: a server ignoring the filter
            } else {
                bound = (op: "gte", time: time)
            }
        }
    }

    /// Every id a filter matches (an id-only listing, paged by id).
    func ids(_ table: String, _ filters: [(name: String, value: String)]) async throws -> Set<String> {
        Set(try await pagedByID(table, filters, select: "id").map { (row: IDRow) in row.id })
    }

    /// Every row a filter matches, paged by id (`id=gt.LAST`). The first page is counted; the
    /// listing ends once that many rows are in, or at an empty page (never at a short one).
    /// Rows deleted meanwhile are simply not listed; as the key only moves forward, no row that
    /// exists throughout is skipped.
    func pagedByID<Row: Decodable & Identifiable & Sendable>(
        _ table: String, _ filters: [(name: String, value: String)], select: String
    ) async throws -> [Row] where Row.ID == String {
        var rows: [Row] = []
        var after: String?
        var total: Int?
        while true {
            var query = filters + [("select", select), ("order", "id.asc"), ("limit", "\(pageSize)")]
            if let after { query.append(("id", "gt.\(after)")) }
            let (page, pageTotal): ([Row], Int?) = try await get(table, query, counted: after == nil)
            if after == nil { total = pageTotal }
            guard let last = page.last else { return rows }
            if let after, last.id <= after { return rows } // the key did not move: a server ignoring `id=gt.`
            rows += page
            if let total, rows.count >= total { return rows }
            if total == nil, page.count < pageSize { return rows }
            after = last.id
        }
    }

    /// These rows (`id=in.(…)`, `idsPerRequest` ids at a time, each paged like any listing).
    func byID<Row: Decodable & Identifiable & Sendable>(_ table: String, select: String, _ ids: [String]) async throws -> [Row] where Row.ID == String {
        var rows: [Row] = []
        for start in stride(from: 0, to: ids.count, by: Self.idsPerRequest) {
            let chunk = ids[start..<min(start + Self.idsPerRequest, ids.count)]
            rows += try await pagedByID(table, [("id", "in.(\(chunk.joined(separator: ",")))")], select: select) as [Row]
        }
        return rows
    }

    /// The number of rows a filter matches: no rows, only `Content-Range: */N` (`Prefer: count=exact`).
    func count(_ table: String, _ filters: [(name: String, value: String)]) async throws -> Int {
        let path = "/rest/v1/\(table)"
        let request = APIRequest(method: "GET", path: path, query: filters + [("select", "id"), ("limit", "0")],
                                 headers: [("Prefer", "count=exact")], retry: readPolicy)
        let response = try await client.send(request)
        guard let total = ContentRange(response.header("Content-Range"))?.total else {
            throw NetworkError.undecodable(path: path, MissingCount())
        }
        return total
    }

    /// One page of rows, and the filter's total when `counted` (`Prefer: count=exact`, read from `Content-Range`).
    func get<Row: Decodable>(_ table: String, _ query: [(name: String, value: String)], counted: Bool) async throws -> ([Row], Int?) {
        let path = "/rest/v1/\(table)"
        let response = try await client.send(APIRequest(method: "GET", path: path, query: query,
                                                        headers: counted ? [("Prefer", "count=exact")] : [], retry: readPolicy))
        return (try decode([Row].self, response.body, path: path), counted ? ContentRange(response.header("Content-Range"))?.total : nil)
    }

    func decode<T: Decodable>(_ type: T.Type, _ body: Data, path: String) throws -> T {
        do { return try SupabaseJSON.decoder().decode(T.self, from: body) } catch {
            throw NetworkError.undecodable(path: path, error)
        }
    }
}

/// A span of creation times, `lower` included and `upper` excluded (the core's ``KeyRange``).
public typealias TimeRange = KeyRange<Date>

extension KeyRange where Bound == Date {
    /// PostgREST filters (`col=gte.A`, `col=lt.B`; one query may filter a column twice).
    func filters(on column: String) -> [(name: String, value: String)] {
        (lower.map { [(column, "gte.\(SupabaseJSON.timestamp($0))")] } ?? []) + (upper.map { [(column, "lt.\(SupabaseJSON.timestamp($0))")] } ?? [])
    }
}

/// A count asked for (`Prefer: count=exact`) that the answer's `Content-Range` does not carry.
struct MissingCount: Error, CustomStringConvertible {
    var description: String { "the answer has no row count (Content-Range: */N)" }
}

/// A PostgREST `Content-Range`: `0-499/2400`, `0-499/*`, `*/0`.
public struct ContentRange: Equatable, Sendable {
    public var first: Int?
    public var last: Int?
    public var total: Int?

    public init?(_ header: String?) {
        guard let header, let slash = header.lastIndex(of: "/") else { return nil }
        let range = header[..<slash].trimmingCharacters(in: .whitespaces)
        let total = header[header.index(after: slash)...].trimmingCharacters(in: .whitespaces)
        self.total = Int(total)
        if total != "*", self.total == nil { return nil }
        if range != "*" {
            let bounds = range.split(separator: "-")
            guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]) else { return nil }
            self.first = first
            self.last = last
        }
    }
}
