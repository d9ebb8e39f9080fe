@testable import Coach
import BradOSCore
import Foundation
import Testing
import TestSupport

@Suite("Supabase client: PostgREST paging, rotation of refresh tokens, decoding")
struct PostgRESTClientTests {
    static let server = URL(string: "http://127.0.0.1:9")!

    static func messageRow(_ index: Int) -> String {
        """
        {"id":"m\(String(format: "%04d", index))","conversation_id":"c1","role":"\(index % 2 == 0 ? "user" : "assistant")",\
        "content":"hello \(index)","created_at":"2026-11-21T10:\(String(format: "%02d", index % 60)):00.12345+00:00"}
        """
    }

    func client(_ transport: StubTransport, pageSize: Int) -> PostgRESTCoachClient {
        PostgRESTCoachClient(client: APIClient(service: .supabase, baseURL: Self.server, transport: transport, authenticator: nil,
                                               defaultHeaders: [("apikey", "anon")]), pageSize: pageSize)
    }

    @Test("pages follow Content-Range until every row is in, even when the server caps pages below the size asked")
    func pagingAcrossContentRange() async throws {
        let total = 23
        let transport = StubTransport { request, _ in
            let range = try #require(request.header("Range")).split(separator: "-").compactMap { Int($0) }
            let first = range[0]
            let last = min(range[1], first + 6, total - 1) // the server's max-rows is 7
            let rows = (first...last).map(Self.messageRow).joined(separator: ",")
            return .json("[\(rows)]", status: last + 1 < total ? 206 : 200, headers: [("Content-Range", "\(first)-\(last)/\(total)")])
        }
        let listing = try await client(transport, pageSize: 10).messages(conversationID: "c1")
        let messages = listing.rows
        #expect(listing.complete)
        #expect(messages.map(\.id) == (0..<total).map { String(format: "m%04d", $0) })
        #expect(transport.requests.count == 4)
        #expect(transport.requests.map { $0.header("Range") } == ["0-9", "7-16", "14-23", "21-30"])
        let first = transport.requests[0]
        #expect(first.header("Range-Unit") == "items" && first.header("Prefer") == "count=exact")
        #expect(first.header("apikey") == "anon")
        let query = URLComponents(url: first.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.contains(URLQueryItem(name: "conversation_id", value: "eq.c1")))
        #expect(query.contains(URLQueryItem(name: "order", value: "created_at.asc,id.asc")))
        #expect(first.url.path == "/rest/v1/messages")
        #expect(abs(messages[0].createdAt.timeIntervalSince1970 - (SupabaseJSON.parseTimestamp("2026-11-21T10:00:00Z")!.timeIntervalSince1970 + 0.12345)) < 1e-6)
    }

    @Test("without a total (`*/`), a short page ends the listing; rows seen twice are kept once")
    func pagingWithoutTotal() async throws {
        let transport = StubTransport { _, index in
            switch index {
            case 0: .json("[\(Self.messageRow(0)),\(Self.messageRow(1))]", headers: [("Content-Range", "0-1/*")])
            case 1: .json("[\(Self.messageRow(1)),\(Self.messageRow(2))]", headers: [("Content-Range", "2-3/*")])
            default: .json("[\(Self.messageRow(3))]", headers: [("Content-Range", "4-4/*")])
            }
        }
        let messages = try await client(transport, pageSize: 2).messages(conversationID: "c1").rows
        #expect(messages.map(\.id) == ["m0000", "m0001", "m0002", "m0003"])
        #expect(transport.requests.count == 3)
    }

    @Test("a server that ignores Range (no Content-Range) ends the listing instead of looping")
    func serverIgnoringRange() async throws {
        let transport = StubTransport { _, _ in .json("[\(Self.messageRow(0)),\(Self.messageRow(1))]") }
        let listing = try await client(transport, pageSize: 2).messages(conversationID: "c1")
        #expect(listing.rows.count == 2)
        #expect(transport.requests.count == 2)
    }

    @Test("rows deleted while paging (416) end the listing, marked incomplete; so do short totals")
    func rowsVanishWhilePaging() async throws {
        let transport = StubTransport { _, index in
            index == 0 ? .json("[\(Self.messageRow(0)),\(Self.messageRow(1))]", status: 206, headers: [("Content-Range", "0-1/4")])
                       : .json(#"{"code":"PGRST103","message":"Requested range not satisfiable"}"#, status: 416, headers: [("Content-Range", "*/1")])
        }
        let listing = try await client(transport, pageSize: 2).messages(conversationID: "c1")
        #expect(listing.rows.count == 2 && !listing.complete)
    }

    @Test("conversations are paged by id (a key that never changes) and sorted by last update locally")
    func conversationsPagedByID() async throws {
        let row: @Sendable (String, String) -> String = { id, updated in
            #"{"id":"\#(id)","user_id":"u","title":"t","domain":null,"last_message_at":null,"message_count":1,"created_at":"2026-11-01T00:00:00Z","updated_at":"\#(updated)"}"#
        }
        let transport = StubTransport { _, _ in
            .json("[\(row("a", "2026-11-02T00:00:00Z")),\(row("b", "2026-11-05T00:00:00Z")),\(row("c", "2026-11-05T00:00:00Z"))]",
                  headers: [("Content-Range", "0-2/3")])
        }
        let listing = try await client(transport, pageSize: 10).conversations(userID: "u")
        #expect(listing.rows.map(\.id) == ["b", "c", "a"])
        let query = URLComponents(url: transport.requests[0].url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.contains(URLQueryItem(name: "order", value: "id.asc")))
    }

    @Test("Content-Range parsing")
    func contentRange() {
        let range = ContentRange("0-499/2400")
        #expect(range?.first == 0 && range?.last == 499 && range?.total == 2400)
        #expect(ContentRange("0-9/*")?.total == nil)
        #expect(ContentRange("*/0")?.total == 0)
        #expect(ContentRange("bogus") == nil)
        #expect(ContentRange("1-x/3") == nil)
    }

    @Test("a body of the wrong shape is an invalid response, never a crash")
    func wrongShape() async throws {
        let transport = StubTransport { _, _ in .json(#"{"rows": []}"#, headers: [("Content-Range", "*/0")]) }
        await #expect(throws: NetworkError.self) { try await client(transport, pageSize: 10).conversations(userID: "u") }
        let badDate = StubTransport { _, _ in .json(#"[{"id":"c","user_id":"u","message_count":1,"created_at":"yesterday","updated_at":"x"}]"#) }
        await #expect(throws: NetworkError.self) { try await client(badDate, pageSize: 10).conversations(userID: "u") }
    }

    @Test("delete asks for the deleted rows back and reports whether the server had the conversation")
    func delete() async throws {
        let transport = StubTransport { _, index in index == 0 ? .json(#"[{"id":"c1"}]"#) : .json("[]") }
        let client = client(transport, pageSize: 10)
        #expect(try await client.deleteConversation(id: "c1"))
        #expect(try await !client.deleteConversation(id: "c1"))
        #expect(transport.requests[0].method == "DELETE")
        #expect(transport.requests[0].header("Prefer") == "return=representation")
    }

    @Test("sign-in and refresh speak GoTrue: grant types, apikey, rotation; a reused token means signing in again")
    func supabaseAuth() async throws {
        let session = #"{"access_token":"jwt2","token_type":"bearer","expires_in":3600,"expires_at":1800003600,"refresh_token":"r2","user":{"id":"u-1","email":"demo@example.com"}}"#
        let transport = StubTransport { request, index in
            switch index {
            case 0, 1: .json(session)
            default: .json(#"{"code":400,"error_code":"refresh_token_already_used","msg":"Invalid Refresh Token: Already Used"}"#, status: 400)
            }
        }
        let account = SupabaseAccountProtocol(anonKey: "anon", now: { Date(timeIntervalSince1970: 1_800_000_000) })
        let credential = try await account.login(user: "demo", password: "demo", server: Self.server, transport: transport)
        #expect(credential.userID == "u-1" && credential.user == "demo@example.com" && credential.refreshToken == "r2")
        #expect(credential.expiresAt == Date(timeIntervalSince1970: 1_800_003_600))
        #expect(transport.requests[0].url.absoluteString.hasSuffix("/auth/v1/token?grant_type=password"))
        #expect(transport.requests[0].header("apikey") == "anon")
        let renewed = try await account.refresh(credential, profile: .default, server: Self.server, transport: transport)
        #expect(renewed.accessToken == "jwt2")
        #expect(transport.requests[1].url.absoluteString.hasSuffix("grant_type=refresh_token"))
        #expect(String(decoding: transport.requests[1].body ?? Data(), as: UTF8.self).contains(#""refresh_token":"r2""#))
        let error = await #expect(throws: AuthError.self) {
            try await account.refresh(credential, profile: .default, server: Self.server, transport: transport)
        }
        #expect(error?.kind == .authRequired && error?.summary.contains("expired") == true)
    }

    @Test("a refused API key is reported as such, not as a bad password")
    func apiKeyRejected() async throws {
        let transport = StubTransport { _, _ in .json(#"{"message":"Invalid API key","hint":"Double check"}"#, status: 401) }
        let account = SupabaseAccountProtocol(anonKey: "wrong")
        await #expect(throws: CoachError.self) {
            try await account.login(user: "demo", password: "demo", server: Self.server, transport: transport)
        }
    }

    @Test("timestamps: PostgreSQL's forms, with offsets and any fraction; garbage is rejected")
    func timestamps() {
        let reference = Date(timeIntervalSince1970: 1_795_256_130) // 2026-11-21T10:15:30Z
        #expect(SupabaseJSON.parseTimestamp("2026-11-21T10:15:30Z") == reference)
        #expect(SupabaseJSON.parseTimestamp("2026-11-21T10:15:30+00:00") == reference)
        #expect(SupabaseJSON.parseTimestamp("2026-11-21 12:15:30+02") == reference)
        #expect(SupabaseJSON.parseTimestamp("2026-11-21T05:15:30-05:00") == reference)
        #expect(SupabaseJSON.parseTimestamp("2026-11-21T10:15:30") == reference)
        let micro = SupabaseJSON.parseTimestamp("2026-11-21T10:15:30.000001+00:00")!
        #expect(abs(micro.timeIntervalSince(reference) - 0.000_001) < 1e-7)
        for bad in ["", "2026-11-21", "2026-13-01T00:00:00Z", "2026-11-21T10:15:30.Z", "2026-11-21T10:15:30+0", "now"] {
            #expect(SupabaseJSON.parseTimestamp(bad) == nil, "\(bad)")
        }
    }
}
