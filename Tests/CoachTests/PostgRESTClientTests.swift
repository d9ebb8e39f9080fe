import BradOSAuth
import BradOSCore
import BradOSNetworking
@testable import Coach
import Foundation
import TestSupport
import Testing

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

    /// A PostgREST double over message rows: `created_at` filters (`gte`, `gt`, `eq`), `id=gt.`,
    /// `id=in.()`, the two orders the client asks for, `limit`, and `Content-Range` counts.
    static func server(_ rows: [(id: String, second: Int)], cap: Int = .max) -> StubTransport {
        StubTransport { request, _ in
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
            let time = { (second: Int) in Date(timeIntervalSince1970: 1_800_000_000 + Double(second)) }
            var matched = rows.sorted { ($0.second, $0.id) < ($1.second, $1.id) }
            if let filter = items.first(where: { $0.name == "created_at" })?.value {
                let parts = filter.split(separator: ".", maxSplits: 1).map(String.init)
                let bound = try #require(SupabaseJSON.parseTimestamp(parts[1]))
                matched = matched.filter { row in
                    switch parts[0] {
                    case "gte": time(row.second) >= bound
                    case "gt": time(row.second) > bound
                    default: time(row.second) == bound
                    }
                }
            }
            for filter in items.filter({ $0.name == "id" }).compactMap(\.value) {
                if filter.hasPrefix("gt.") { matched = matched.filter { $0.id > filter.dropFirst(3) } }
                if filter.hasPrefix("in.(") { let ids = filter.dropFirst(4).dropLast().split(separator: ",").map(String.init); matched = matched.filter { ids.contains($0.id) } }
            }
            if value("order") == "id.asc" { matched.sort { $0.id < $1.id } }
            let limit = min(value("limit").flatMap(Int.init) ?? matched.count, cap) // `db-max-rows`
            let page = matched.prefix(limit)
            let body = page.map { row in
                #"{"id":"\#(row.id)","conversation_id":"c1","role":"user","content":"x","created_at":"\#(SupabaseJSON.timestamp(time(row.second)))"}"#
            }
            return .json("[\(body.joined(separator: ","))]", headers: [("Content-Range", "\(page.isEmpty ? "*" : "0-\(page.count - 1)")/\(matched.count)")])
        }
    }

    func filters(_ transport: StubTransport, _ name: String) -> [String?] {
        transport.requests.map { request in
            (URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).first { $0.name == name }?.value
        }
    }

    @Test("pages go by key: each starts at the last page's last time (gte), rows read twice are kept once")
    func pagingByKey() async throws {
        let rows = (0..<23).map { (id: String(format: "m%04d", $0), second: $0 / 2) } // pairs share a second
        let transport = Self.server(rows)
        let messages = try await client(transport, pageSize: 5).messages(conversationID: "c1", createdSince: nil)
        #expect(messages.map(\.id) == rows.map(\.id))
        let bounds = filters(transport, "created_at")
        #expect(bounds.first == .some(nil))
        #expect(bounds.dropFirst().allSatisfy { $0?.hasPrefix("gte.") == true })
        #expect(filters(transport, "order").allSatisfy { $0 == "created_at.asc,id.asc" })
        #expect(filters(transport, "conversation_id").allSatisfy { $0 == "eq.c1" })
        // From a cursor: only the rows at or after it, the row at the cursor's time included.
        let since = Date(timeIntervalSince1970: 1_800_000_000 + 10)
        let newer = try await client(Self.server(rows), pageSize: 5).messages(conversationID: "c1", createdSince: since)
        #expect(newer.map(\.id) == ["m0020", "m0021", "m0022"])
    }

    @Test("a server that caps every answer below the page size asked for: short pages are not the end, every row comes")
    func cappedServer() async throws {
        let rows = (0..<23).map { (id: String(format: "m%04d", $0), second: $0 / 2) }
        let messages = try await client(Self.server(rows, cap: 3), pageSize: 10).messages(conversationID: "c1", createdSince: nil)
        #expect(messages.map(\.id) == rows.map(\.id))
        let ids = try await client(Self.server(rows, cap: 4), pageSize: 10).messageIDs(conversationID: "c1", in: .all)
        #expect(ids == Set(rows.map(\.id)))
        let byID = try await client(Self.server(rows, cap: 2), pageSize: 10).messages(ids: rows.map(\.id))
        #expect(Set(byID.map(\.id)) == Set(rows.map(\.id)))
    }

    @Test("a page whose rows all share one instant is read whole by id, then the listing goes on after it")
    func instantFillsPage() async throws {
        let rows = (0..<7).map { (id: "a\($0)", second: 5) } + [(id: "b0", second: 6), (id: "b1", second: 7)]
        let transport = Self.server(rows)
        let messages = try await client(transport, pageSize: 3).messages(conversationID: "c1", createdSince: nil)
        #expect(messages.map(\.id) == rows.map(\.id))
        #expect(filters(transport, "created_at").contains { $0?.hasPrefix("eq.") == true })
        #expect(filters(transport, "created_at").contains { $0?.hasPrefix("gt.") == true })
    }

    @Test("id-only listings page by id; counts come from Content-Range alone, and an answer without one is refused")
    func idsAndCounts() async throws {
        let rows = (0..<11).map { (id: String(format: "m%02d", $0), second: 0) }
        let transport = Self.server(rows)
        let client = client(transport, pageSize: 4)
        #expect(try await client.messageIDs(conversationID: "c1", in: .all) == Set(rows.map(\.id)))
        #expect(filters(transport, "select").allSatisfy { $0 == "id" })
        #expect(filters(transport, "id") == [nil, "gt.m03", "gt.m07"])
        #expect(try await client.conversationCount(userID: "u") == 11)
        #expect(transport.requests.last?.header("Prefer") == "count=exact")
        #expect(filters(transport, "limit").last == "0")
        let noCount = StubTransport { _, _ in .json("[]") }
        await #expect(throws: NetworkError.self) { try await self.client(noCount, pageSize: 4).conversationCount(userID: "u") }
        let byID = try await client.messages(ids: ["m01", "m05", "zz"])
        #expect(byID.map(\.id) == ["m01", "m05"])
    }

    @Test("one conversation comes with the server's count of its messages (select=*,messages(count))")
    func conversationWithCount() async throws {
        let transport = StubTransport { _, _ in
            .json(#"[{"id":"c","user_id":"u","title":"t","domain":null,"last_message_at":null,"message_count":1,"created_at":"2026-11-01T00:00:00Z","updated_at":"2026-11-02T00:00:00Z","messages":[{"count":42}]}]"#)
        }
        let remote = try #require(try await client(transport, pageSize: 10).conversation(id: "c"))
        #expect(remote.messageCount == 42 && remote.conversation.id == "c")
        #expect(filters(transport, "select") == ["*,messages(count)"])
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
        await #expect(throws: NetworkError.self) { try await client(transport, pageSize: 10).conversations(userID: "u", updatedSince: nil) }
        let badDate = StubTransport { _, _ in .json(#"[{"id":"c","user_id":"u","message_count":1,"created_at":"yesterday","updated_at":"x"}]"#) }
        await #expect(throws: NetworkError.self) { try await client(badDate, pageSize: 10).conversations(userID: "u", updatedSince: nil) }
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
