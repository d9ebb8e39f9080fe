@testable import BradOSServer
import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite("Reference server: accounts, admin stats and faults")
struct ServerAuthTests {
    func makeServer(admin: Bool = true, ttl: Int = 3600) throws -> ReferenceServer {
        try ReferenceServer(configuration: ServerConfiguration(port: 0, tokenTTL: ttl, admin: admin))
    }

    struct Tokens: Decodable { var accessToken: String; var refreshToken: String; var expiresIn: Int }

    static func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }
    static func decode<T: Decodable>(_ type: T.Type, _ buffer: ByteBuffer) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
    }

    @Test("login answers tokens for the demo users and 401 for a wrong password")
    func login() async throws {
        let app = Application(router: try makeServer().buildRouter())
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/auth/login", method: .post, body: Self.body(#"{"username":"demo","password":"demo"}"#)) { response in
                #expect(response.status == .ok)
                let tokens = try Self.decode(Tokens.self, response.body)
                #expect(tokens.expiresIn == 3600)
                #expect(!tokens.accessToken.isEmpty)
            }
            try await client.execute(uri: "/api/auth/login", method: .post, body: Self.body(#"{"username":"alice@example.com","password":"alice"}"#)) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/auth/login", method: .post, body: Self.body(#"{"username":"demo","password":"nope"}"#)) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/api/auth/login", method: .post, body: Self.body("not json")) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test("refresh tokens are single-use: a reused one is rejected")
    func refreshRotation() async throws {
        let app = Application(router: try makeServer().buildRouter())
        try await app.test(.router) { client in
            let first = try await client.execute(uri: "/api/auth/login", method: .post, body: Self.body(#"{"username":"demo","password":"demo"}"#)) {
                try Self.decode(Tokens.self, $0.body)
            }
            let refresh = #"{"refreshToken":"\#(first.refreshToken)"}"#
            let second = try await client.execute(uri: "/api/auth/refresh", method: .post, body: Self.body(refresh)) { response in
                #expect(response.status == .ok)
                return try Self.decode(Tokens.self, response.body)
            }
            #expect(second.refreshToken != first.refreshToken)
            try await client.execute(uri: "/api/auth/refresh", method: .post, body: Self.body(refresh)) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/api/auth/me", method: .get, headers: [.authorization: "Bearer \(second.accessToken)"]) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/auth/me", method: .get, headers: [.authorization: "Bearer wrong"]) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test("access tokens expire after the configured lifetime")
    func tokenExpiry() throws {
        let server = try makeServer(ttl: 5)
        let user = try #require(try server.database.verify(login: "demo", password: "demo"))
        let now = Date()
        let tokens = try server.database.issueTokens(for: user.id, accessTTL: 5, now: now)
        #expect(try server.database.user(forAccessToken: tokens.access, now: now.addingTimeInterval(4)) != nil)
        #expect(try server.database.user(forAccessToken: tokens.access, now: now.addingTimeInterval(6)) == nil)
    }

    @Test("admin stats count requests by method and route pattern, and reset")
    func stats() async throws {
        let app = Application(router: try makeServer().buildRouter())
        try await app.test(.router) { client in
            for _ in 0..<2 { try await client.execute(uri: "/api/auth/me", method: .get) { _ in } }
            try await client.execute(uri: "/health", method: .get) { _ in }
            try await client.execute(uri: "/_admin/stats", method: .get) { response in
                let stats = try Self.decode(AdminState.Stats.self, response.body)
                #expect(stats.total == 3)
                #expect(stats.byRoute["GET /api/auth/me"] == 2)
                #expect(stats.byRoute["GET /health"] == 1)
            }
            try await client.execute(uri: "/_admin/stats", method: .delete) { _ in }
            try await client.execute(uri: "/_admin/stats", method: .get) { response in
                let stats = try Self.decode(AdminState.Stats.self, response.body)
                #expect(stats.total == 0)
            }
        }
    }

    @Test("a fault with a count applies that many times, then the route answers normally")
    func faults() async throws {
        let app = Application(router: try makeServer().buildRouter())
        try await app.test(.router) { client in
            try await client.execute(uri: "/_admin/faults", method: .post,
                                     body: Self.body(#"{"match":"GET /health","status":503,"retryAfter":2,"count":2}"#)) { response in
                #expect(response.status == .created)
            }
            for _ in 0..<2 {
                try await client.execute(uri: "/health", method: .get) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(response.headers[.retryAfter] == "2")
                }
            }
            try await client.execute(uri: "/health", method: .get) { response in #expect(response.status == .ok) }
            try await client.execute(uri: "/_admin/faults", method: .post, body: Self.body(#"{"match":"*","status":500}"#)) { _ in }
            try await client.execute(uri: "/api/auth/me", method: .get) { response in #expect(response.status == .internalServerError) }
            try await client.execute(uri: "/_admin/faults", method: .delete) { _ in }
            try await client.execute(uri: "/health", method: .get) { response in #expect(response.status == .ok) }
        }
    }

    @Test("fault matching: method and path prefix, prefix alone, or everything")
    func matching() {
        #expect(FaultRule(match: "GET /api/mealplans").matches(method: "GET", path: "/api/mealplans/latest"))
        #expect(!FaultRule(match: "GET /api/mealplans").matches(method: "POST", path: "/api/mealplans/latest"))
        #expect(FaultRule(match: "/api/visits").matches(method: "DELETE", path: "/api/visits/3"))
        #expect(FaultRule(match: "*").matches(method: "PUT", path: "/x"))
        #expect(!FaultRule(match: "GET /api/visits").matches(method: "GET", path: "/api/mealplans"))
    }

    /// A live server (real socket) with one fault rule already installed.
    func withLiveFault(_ rule: FaultRule, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let server = try makeServer()
        await server.admin.add(rule)
        let app = Application(router: server.buildRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in try await body(client) }
    }

    @Test("injected latency delays the answer, over a live socket")
    func liveLatency() async throws {
        try await withLiveFault(FaultRule(match: "GET /health", latencyMs: 150, count: 1)) { client in
            let started = ContinuousClock.now
            try await client.execute(uri: "/health", method: .get) { response in #expect(response.status == .ok) }
            #expect(ContinuousClock.now - started >= .milliseconds(150))
        }
    }

    @Test("truncate and drop break the connection instead of answering", arguments: [
        FaultRule(match: "GET /health", truncate: true), FaultRule(match: "GET /health", drop: true),
    ])
    func liveBrokenConnection(rule: FaultRule) async throws {
        try await withLiveFault(rule) { client in
            // A body shorter than its Content-Length must surface as an error, never a silent success.
            let error = await #expect(throws: (any Error).self) {
                try await client.execute(uri: "/health", method: .get) { _ in }
            }
            #expect(!(error is CancellationError))
        }
    }

    @Test("admin routes exist only with --admin")
    func adminOff() async throws {
        let app = Application(router: try makeServer(admin: false).buildRouter())
        try await app.test(.router) { client in
            try await client.execute(uri: "/_admin/stats", method: .get) { response in #expect(response.status == .notFound) }
        }
    }
}

/// Issue 16: the embedded backend opens no TCP port, and its accounts have the profile's password.
@Suite("Reference server: embedded on a Unix socket")
struct EmbeddedServerTests {
    /// `GET path` over the socket with a plain HTTP/1.1 request; returns the status line and body.
    static func get(_ socket: String, _ request: String) throws -> String {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in socket.utf8.enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        _ = request.withCString { write(fd, $0, strlen($0)) }
        var data = [UInt8](repeating: 0, count: 65536)
        var total = 0
        while total < data.count {
            let count = data.withUnsafeMutableBytes { read(fd, $0.baseAddress! + total, $0.count - total) }
            if count <= 0 { break }
            total += count
        }
        return String(decoding: data[0..<total], as: UTF8.self)
    }

    @Test("The database file is 0600 whatever the umask left: a new one, and one an earlier version made 0644")
    func databaseIsPrivate() throws {
        func mode(_ path: String) -> mode_t {
            var info = stat()
            return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
        }
        let fresh = TemporaryDirectory("db-new")
        _ = try ServerDatabase(directory: fresh.url)
        let freshPath = fresh.url.appendingPathComponent("server.sqlite").path
        #expect(mode(freshPath) == 0o600)

        let old = TemporaryDirectory("db-old")
        _ = try ServerDatabase(directory: old.url)
        let oldPath = old.url.appendingPathComponent("server.sqlite").path
        #expect(chmod(oldPath, 0o644) == 0)
        let reopened = try ServerDatabase(directory: old.url)
        #expect(mode(oldPath) == 0o600)
        // Nothing stored is lost by the narrowing: what the first open wrote is still there.
        #expect(try reopened.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations") ?? 0 } > 0)
    }

    @Test("startEmbedded listens on a 0600 Unix socket (no port), and only the given password signs in")
    func unixSocketOnly() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("emb-\(getpid())-\(Int.random(in: 0..<1_000_000))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("s.sock").path
        let url = try await ReferenceServer.startEmbedded(dataDirectory: folder, socket: socket, password: "a-long-random-secret")
        // No TCP port: the URL names the socket (reliability/security.py checks the built brados
        // with strace: no AF_INET bind at all; a /proc check here would race the other suites' servers).
        #expect(url.scheme == "http+unix" && url.port == nil)
        var info = stat()
        #expect(stat(socket, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK && info.st_mode & 0o777 == 0o600)
        #expect(try Self.get(socket, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").contains("200 OK"))
        func login(_ password: String) throws -> String {
            let body = #"{"username":"demo","password":"\#(password)"}"#
            return try Self.get(socket, "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        }
        #expect(!(try login("demo")).contains("200 OK"))
        #expect(try login("a-long-random-secret").contains("200 OK"))
    }
}
