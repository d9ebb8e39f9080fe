@testable import BradOSServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Reference server: Supabase Auth and PostgREST for the coach")
struct SupabaseRoutesTests {
    static let key = ServerConfiguration.defaultAnonKey
    static let demo = "8f5c2a64-0d7e-4a53-9d51-3f0c8d0b7a11"
    static let alice = "1b7e9c20-64a2-4f0e-8c3b-5d2f1a9e4c22"

    struct Session: Decodable {
        struct User: Decodable { var id: String; var email: String; var aud: String }
        var access_token: String
        var refresh_token: String
        var token_type: String
        var expires_in: Int
        var expires_at: Int
        var user: User
    }

    static func json(_ buffer: ByteBuffer) throws -> Any { try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) }
    static func parsed(_ buffer: ByteBuffer) -> Any? { try? json(buffer) }

    func app() throws -> some ApplicationProtocol {
        Application(router: try ReferenceServer(configuration: ServerConfiguration(port: 0)).buildRouter())
    }

    func signIn(_ client: some TestClientProtocol, _ login: String, _ password: String) async throws -> Session {
        try await client.execute(uri: "/auth/v1/token?grant_type=password", method: .post, headers: [.apikey: Self.key],
                                 body: ByteBuffer(string: #"{"email":"\#(login)","password":"\#(password)"}"#)) { response in
            #expect(response.status == .ok)
            return try JSONDecoder().decode(Session.self, from: Data(response.body.readableBytesView))
        }
    }

    func headers(_ session: Session?) -> HTTPFields {
        var fields: HTTPFields = [.apikey: Self.key, .prefer: "count=exact"]
        if let session { fields[.authorization] = "Bearer \(session.access_token)" }
        return fields
    }

    @Test("password grant (email or user name), apikey required, refresh rotation rejects a reused token")
    func auth() async throws {
        try await app().test(.router) { client in
            let session = try await signIn(client, "demo", "demo")
            #expect(session.user.id == Self.demo && session.user.email == "demo@example.com" && session.token_type == "bearer")
            #expect(session.access_token.split(separator: ".").count == 3) // a JWT
            #expect(session.expires_at > Int(Date().timeIntervalSince1970))
            _ = try await signIn(client, "alice@example.com", "alice")
            try await client.execute(uri: "/auth/v1/token?grant_type=password", method: .post, headers: [.apikey: Self.key],
                                     body: ByteBuffer(string: #"{"email":"demo","password":"wrong"}"#)) { response in
                #expect(response.status == .badRequest)
                let body = try Self.json(response.body) as? [String: Any]
                #expect(body?["error_code"] as? String == "invalid_credentials")
            }
            try await client.execute(uri: "/auth/v1/token?grant_type=password", method: .post,
                                     body: ByteBuffer(string: #"{"email":"demo","password":"demo"}"#)) { response in
                #expect(response.status == .unauthorized)
            }
            let refresh = ByteBuffer(string: #"{"refresh_token":"\#(session.refresh_token)"}"#)
            let rotated = try await client.execute(uri: "/auth/v1/token?grant_type=refresh_token", method: .post, headers: [.apikey: Self.key], body: refresh) { response in
                #expect(response.status == .ok)
                return try JSONDecoder().decode(Session.self, from: Data(response.body.readableBytesView))
            }
            #expect(rotated.refresh_token != session.refresh_token && rotated.access_token != session.access_token)
            try await client.execute(uri: "/auth/v1/token?grant_type=refresh_token", method: .post, headers: [.apikey: Self.key], body: refresh) { response in
                #expect(response.status == .badRequest)
                let body = try Self.json(response.body) as? [String: Any]
                #expect(body?["error_code"] as? String == "refresh_token_already_used")
            }
            try await client.execute(uri: "/auth/v1/user", method: .get, headers: headers(rotated)) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/auth/v1/logout?scope=local", method: .post, headers: headers(rotated)) { response in
                #expect(response.status == .noContent)
            }
            let afterLogout = ByteBuffer(string: #"{"refresh_token":"\#(rotated.refresh_token)"}"#)
            try await client.execute(uri: "/auth/v1/token?grant_type=refresh_token", method: .post, headers: [.apikey: Self.key], body: afterLogout) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test("PostgREST: eq/order/select, Range with Content-Range and count, 206 and 416, rows only of their owner")
    func selects() async throws {
        try await app().test(.router) { client in
            let demo = try await signIn(client, "demo", "demo")
            let conversations = try await client.execute(
                uri: "/rest/v1/conversations?select=id,message_count,updated_at&user_id=eq.\(Self.demo)&order=updated_at.desc", method: .get,
                headers: headers(demo)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentRange] == "0-7/8")
                return try Self.json(response.body) as? [[String: Any]] ?? []
            }
            #expect(conversations.count == 8)
            #expect(Set(conversations[0].keys) == ["id", "message_count", "updated_at"])
            let updated = conversations.compactMap { $0["updated_at"] as? String }
            #expect(updated == updated.sorted(by: >))
            #expect(updated[0].hasSuffix("+00:00"))
            let busiest = try #require(conversations.first { ($0["message_count"] as? Int) == 2400 }?["id"] as? String)

            var ranged = headers(demo)
            ranged[.range] = "1000-1999"
            ranged[HTTPField.Name("Range-Unit")!] = "items"
            try await client.execute(uri: "/rest/v1/messages?select=*&conversation_id=eq.\(busiest)&order=created_at.asc", method: .get,
                                     headers: ranged) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "1000-1999/2400")
                #expect((Self.parsed(response.body) as? [Any])?.count == 1000)
            }
            // max-rows: an open range gets at most 1000 rows.
            ranged[.range] = "2000-"
            try await client.execute(uri: "/rest/v1/messages?conversation_id=eq.\(busiest)", method: .get, headers: ranged) { response in
                #expect(response.headers[.contentRange] == "2000-2399/2400")
            }
            ranged[.range] = "5000-5999"
            try await client.execute(uri: "/rest/v1/messages?conversation_id=eq.\(busiest)", method: .get, headers: ranged) { response in
                #expect(response.status == .rangeNotSatisfiable)
                #expect(response.headers[.contentRange] == "*/2400")
            }
            try await client.execute(uri: "/rest/v1/messages?conversation_id=eq.\(busiest)&limit=3&offset=2&order=created_at.asc,id.asc",
                                     method: .get, headers: [.apikey: Self.key, .authorization: "Bearer \(demo.access_token)"]) { response in
                #expect(response.headers[.contentRange] == "2-4/*")
            }
            // Row-level security: alice sees none of demo's rows; the anon role sees nothing.
            let alice = try await signIn(client, "alice", "alice")
            try await client.execute(uri: "/rest/v1/conversations?user_id=eq.\(Self.demo)", method: .get, headers: headers(alice)) { response in
                #expect((Self.parsed(response.body) as? [Any])?.isEmpty == true)
                #expect(response.headers[.contentRange] == "*/0")
            }
            try await client.execute(uri: "/rest/v1/conversations", method: .get, headers: headers(nil)) { response in
                #expect((Self.parsed(response.body) as? [Any])?.isEmpty == true)
            }
            try await client.execute(uri: "/rest/v1/conversations", method: .get,
                                     headers: [.apikey: Self.key, .authorization: "Bearer not-a-token"]) { response in
                #expect(response.status == .unauthorized)
            }
            // Bad queries are PostgREST errors, not crashes.
            try await client.execute(uri: "/rest/v1/conversations?nope=eq.1", method: .get, headers: headers(demo)) { response in
                #expect(response.status == .badRequest)
                #expect((Self.parsed(response.body) as? [String: Any])?["code"] as? String == "42703")
            }
            try await client.execute(uri: "/rest/v1/conversations?title=wat", method: .get, headers: headers(demo)) { response in
                #expect(response.status == .badRequest)
            }
            var single = headers(demo)
            single[.accept] = "application/vnd.pgrst.object+json"
            try await client.execute(uri: "/rest/v1/context_profiles?user_id=eq.\(Self.demo)", method: .get, headers: single) { response in
                #expect(response.status == .ok)
                let profile = try Self.json(response.body) as? [String: Any]
                #expect((profile?["goals"] as? [Any])?.count == 3)
            }
        }
    }

    @Test("DELETE by filter cascades to messages, returns the rows asked for, and needs a filter")
    func deletes() async throws {
        try await app().test(.router) { client in
            let demo = try await signIn(client, "demo", "demo")
            let ids = try await client.execute(uri: "/rest/v1/conversations?select=id&order=updated_at.asc", method: .get, headers: headers(demo)) {
                (Self.parsed($0.body) as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            var returning = headers(demo)
            returning[.prefer] = "return=representation"
            try await client.execute(uri: "/rest/v1/conversations?id=eq.\(ids[0])", method: .delete, headers: returning) { response in
                #expect(response.status == .ok)
                #expect((Self.parsed(response.body) as? [[String: Any]])?.first?["id"] as? String == ids[0])
            }
            try await client.execute(uri: "/rest/v1/messages?conversation_id=eq.\(ids[0])", method: .get, headers: headers(demo)) { response in
                #expect(response.headers[.contentRange] == "*/0")
            }
            try await client.execute(uri: "/rest/v1/conversations?id=eq.\(ids[0])", method: .delete, headers: returning) { response in
                #expect((Self.parsed(response.body) as? [Any])?.isEmpty == true)
            }
            try await client.execute(uri: "/rest/v1/conversations", method: .delete, headers: headers(demo)) { response in
                #expect(response.status == .badRequest)
            }
            // Alice cannot delete demo's conversation.
            let alice = try await signIn(client, "alice", "alice")
            try await client.execute(uri: "/rest/v1/conversations?id=eq.\(ids[1])", method: .delete, headers: headers(alice)) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/rest/v1/conversations?id=eq.\(ids[1])", method: .get, headers: headers(demo)) { response in
                #expect(response.headers[.contentRange] == "0-0/1")
            }
        }
    }

    @Test("hostile Range headers and paging values are a 4xx or a clipped page, never a trap (Range: 0-Int.max overflowed)")
    func hostileRanges() async throws {
        try await app().test(.router) { client in
            let session = try await signIn(client, "demo", "demo")
            for range in ["0-9223372036854775807", "9223372036854775807-9223372036854775807", "5-9223372036854775807", "0-", "-", "a-b", "99999999999999999999-1"] {
                var fields = headers(session)
                fields[.range] = range
                try await client.execute(uri: "/rest/v1/conversations", method: .get, headers: fields) { response in
                    #expect([200, 206, 416].contains(response.status.code), "Range \(range): \(response.status)")
                }
            }
            for query in ["offset=-1", "limit=-5", "limit=abc", "offset=9223372036854775807&limit=9223372036854775807", "offset=99999999999999999999"] {
                try await client.execute(uri: "/rest/v1/conversations?\(query)", method: .get, headers: headers(session)) { response in
                    #expect([200, 206, 400, 416].contains(response.status.code), "\(query): \(response.status)")
                }
            }
        }
    }
}
