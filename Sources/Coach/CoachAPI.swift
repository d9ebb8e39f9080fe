import BradOSCore
import Foundation

/// Rows read page by page, and whether every row the server counted arrived (rows deleted
/// or moved while paging can make a listing incomplete; then nothing is inferred from absences).
public struct Listing<Row: Sendable>: Sendable {
    public var rows: [Row]
    public var complete: Bool

    public init(rows: [Row], complete: Bool) {
        self.rows = rows
        self.complete = complete
    }
}

/// The coach's remote data. The default is ``PostgRESTCoachClient``; tests inject doubles.
public protocol CoachAPI: Sendable {
    /// Every conversation of the user, most recently updated first.
    func conversations(userID: String) async throws -> Listing<Conversation>
    /// One conversation, or `nil` when the server has no such row (for this user).
    func conversation(id: String) async throws -> Conversation?
    /// Every message of a conversation, oldest first (ties by id).
    func messages(conversationID: String) async throws -> Listing<Message>
    /// Deletes a conversation (its messages go with it); `false` when the server has no such row.
    func deleteConversation(id: String) async throws -> Bool
    /// The user's context profile, if they have one.
    func contextProfile(userID: String) async throws -> ContextProfile?
}

/// PostgREST over the core ``APIClient`` (retries, token renewal, error mapping).
///
/// Lists are read page by page with `Range`/`Range-Unit: items` and `Prefer: count=exact`,
/// following `Content-Range` (`0-499/2400`) until every row is in, whatever page size the
/// server caps responses at. A row seen twice (the data moved between pages) is kept once.
public struct PostgRESTCoachClient: CoachAPI {
    public let client: APIClient
    public var pageSize: Int
    /// Reads have the local copy to fall back on, so they retry once, soon, instead of
    /// making an offline user wait through the full backoff.
    public var readPolicy: RetryPolicy

    public static let defaultReadPolicy = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(500))

    public init(client: APIClient, pageSize: Int = 500, readPolicy: RetryPolicy = defaultReadPolicy) {
        self.client = client
        self.pageSize = pageSize
        self.readPolicy = readPolicy
    }

    /// Paged by id, which never changes (paging by `updated_at` would skip a conversation
    /// updated meanwhile), then sorted most recently updated first.
    public func conversations(userID: String) async throws -> Listing<Conversation> {
        var listing: Listing<Conversation> = try await all("conversations", [("select", "*"), ("user_id", "eq.\(userID)"), ("order", "id.asc")])
        listing.rows.sort { ($0.updatedAt, $1.id) > ($1.updatedAt, $0.id) }
        return listing
    }

    public func conversation(id: String) async throws -> Conversation? {
        var request = APIRequest.get("/rest/v1/conversations", query: [("select", "*"), ("id", "eq.\(id)"), ("limit", "1")])
        request.retry = readPolicy
        let response = try await client.send(request)
        return try decode([Conversation].self, response.body, path: request.path).first
    }

    public func messages(conversationID: String) async throws -> Listing<Message> {
        try await all("messages", [("select", "id,conversation_id,role,content,created_at"), ("conversation_id", "eq.\(conversationID)"),
                                   ("order", "created_at.asc,id.asc")])
    }

    public func deleteConversation(id: String) async throws -> Bool {
        let request = APIRequest(method: "DELETE", path: "/rest/v1/conversations", query: [("id", "eq.\(id)"), ("select", "id")],
                                 headers: [("Prefer", "return=representation")])
        // Retried like any request: a delete by filter is idempotent.
        let response = try await client.send(request)
        struct Deleted: Decodable { var id: String }
        let rows = try decode([Deleted].self, response.body, path: request.path)
        return rows.contains { $0.id == id }
    }

    public func contextProfile(userID: String) async throws -> ContextProfile? {
        var request = APIRequest.get("/rest/v1/context_profiles", query: [("select", "*"), ("user_id", "eq.\(userID)"), ("limit", "1")])
        request.retry = readPolicy
        let response = try await client.send(request)
        return try decode([ContextProfile].self, response.body, path: request.path).first
    }

    /// Every row of a query, page by page. Ends at the counted total, at a short page when
    /// there is no count, at a page that brings nothing new (a server ignoring `Range`), or
    /// at a 416 (rows deleted meanwhile; the listing is then incomplete).
    func all<Row: Decodable & Identifiable & Sendable>(_ table: String, _ query: [(name: String, value: String)]) async throws -> Listing<Row>
    where Row.ID == String {
        var rows: [Row] = []
        var seen = Set<String>()
        var offset = 0
        var total: Int?
        var cutShort = false
        let path = "/rest/v1/\(table)"
        while true {
            let request = APIRequest(method: "GET", path: path, query: query, headers: [
                ("Range-Unit", "items"), ("Range", "\(offset)-\(offset + pageSize - 1)"), ("Prefer", "count=exact"),
            ], retry: readPolicy)
            let response: HTTPResponse
            do {
                response = try await client.send(request)
            } catch let NetworkError.http(status, _, _, _, _) where status == 416 && offset > 0 {
                cutShort = true
                break
            }
            let page = try decode([Row].self, response.body, path: path)
            var added = 0
            for row in page where seen.insert(row.id).inserted {
                rows.append(row)
                added += 1
            }
            if let counted = ContentRange(response.header("Content-Range"))?.total { total = counted }
            offset += page.count
            if page.isEmpty || added == 0 { break }
            if let total {
                if offset >= total { break }
            } else if page.count < pageSize {
                break
            }
        }
        return Listing(rows: rows, complete: !cutShort && rows.count >= (total ?? rows.count))
    }

    func decode<T: Decodable>(_ type: T.Type, _ body: Data, path: String) throws -> T {
        do { return try SupabaseJSON.decoder().decode(T.self, from: body) } catch {
            throw NetworkError.undecodable(path: path, error)
        }
    }
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
