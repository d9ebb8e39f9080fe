@testable import BradOSAuth
import BradOSErrors
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Logging
import TestSupport
import Testing

@Suite("Auth: one renewal after a 401")
struct AuthTests {
    let base = URL(string: "http://127.0.0.1:9")!

    func makeStore(_ dir: TemporaryDirectory, token: String = "old-access") throws -> CredentialStore {
        let paths = Paths.resolve(environment: ["BRADOS_HOME": dir.url.path])
        let store = CredentialStore(paths: paths, profile: .default)
        try store.save(CredentialSet(account: Credential(
            accessToken: token, refreshToken: "refresh-1", expiresAt: nil, user: "demo", userID: "u1",
            server: base.absoluteString, obtainedAt: Date())))
        return store
    }

    func client(_ transport: StubTransport, _ store: CredentialStore, logger: Logger = Logger(label: "t")) -> APIClient {
        let authenticator = TokenAuthenticator(service: .account, store: store, account: BradOSAccountProtocol(), server: base,
                                               transport: transport, logger: logger)
        return APIClient(service: .account, baseURL: base, transport: transport, authenticator: authenticator,
                         retrier: Retrier(clock: ManualClock(), random: { 0.5 }))
    }

    static let renewed = #"{"accessToken":"new-access","refreshToken":"refresh-2","expiresIn":60,"user":{"id":"u1","username":"demo"}}"#

    @Test("a 401 renews the token once, replays the request with it, and stores the new tokens")
    func renewsOnce() async throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let transport = StubTransport { request, _ in
            if request.url.path == "/api/auth/refresh" { return .json(Self.renewed) }
            return request.header("Authorization") == "Bearer new-access" ? .json("{}") : .json("{}", status: 401)
        }
        let response = try await client(transport, store).send(.get("/api/data"))
        #expect(response.status == 200)
        #expect(transport.requests.map(\.url.path) == ["/api/data", "/api/auth/refresh", "/api/data"])
        let refreshBody = String(decoding: transport.requests[1].body ?? Data(), as: UTF8.self)
        #expect(refreshBody.contains("refresh-1"))
        #expect(store.load().account?.accessToken == "new-access")
        #expect(store.load().account?.refreshToken == "refresh-2")
    }

    @Test("a second 401 after renewal says sign in again, with exit code 4")
    func secondRejection() async throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let transport = StubTransport { request, _ in
            request.url.path == "/api/auth/refresh" ? .json(Self.renewed) : .json("{}", status: 401)
        }
        do {
            _ = try await client(transport, store).send(.get("/api/data"))
            Issue.record("expected sessionExpired")
        } catch let error as AuthError {
            #expect(error.summary.contains("sign in again"))
            #expect(error.kind == .authRequired, "exit 4: sign in")
        }
        #expect(transport.requests.filter { $0.url.path == "/api/auth/refresh" }.count == 1)
        #expect(transport.requests.count == 3)
    }

    @Test("a renewal that fails on the server side (503) is retried, not turned into 'sign in again'")
    func transientRenewalFailure() async throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        // The first refresh attempt fails with 503, the next succeeds.
        let refreshes = Locked(0)
        let flaky = StubTransport { request, _ in
            if request.url.path == "/api/auth/refresh" {
                return refreshes.next() == 0 ? .json("{}", status: 503) : .json(Self.renewed)
            }
            return request.header("Authorization") == "Bearer new-access" ? .json("{}") : .json("{}", status: 401)
        }
        let response = try await client(flaky, store).send(.get("/api/data"))
        #expect(response.status == 200)
        #expect(flaky.requests.filter { $0.url.path == "/api/auth/refresh" }.count == 2)
        #expect(store.load().account?.accessToken == "new-access")
    }

    @Test("a refused refresh token is a session expiry, not a retry loop")
    func refusedRefresh() async throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let transport = StubTransport { _, _ in .json("{}", status: 401) }
        await #expect(throws: AuthError.self) { try await client(transport, store).send(.get("/api/data")) }
        #expect(transport.requests.count == 2)
    }

    @Test("if another process already renewed, the new token is used without spending the refresh token")
    func renewedElsewhere() async throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let authenticator = TokenAuthenticator(service: .account, store: store, account: BradOSAccountProtocol(), server: base,
                                               transport: StubTransport { _, _ in .json("{}", status: 500) }, logger: Logger(label: "t"))
        // Another process stored new tokens after we sent "old-access".
        var credentials = store.load()
        credentials.account?.accessToken = "other-process-token"
        try store.save(credentials)
        let token = try await authenticator.renewToken(replacing: "old-access")
        #expect(token == "other-process-token")
    }

    @Test("concurrent 401s in one process renew once")
    func concurrentRenewal() async throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let transport = StubTransport { request, _ in
            if request.url.path == "/api/auth/refresh" { return .json(Self.renewed) }
            return request.header("Authorization") == "Bearer new-access" ? .json("{}") : .json("{}", status: 401)
        }
        let api = client(transport, store)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<5 { group.addTask { try await api.send(.get("/api/data")).status } }
            for try await status in group { #expect(status == 200) }
        }
        #expect(transport.requests.filter { $0.url.path == "/api/auth/refresh" }.count == 1)
    }

    @Test("tokens never appear in debug logs or in a credential's description")
    func noTokensInLogs() async throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let io = CapturingIO(environment: [:])
        let logger = Logger(label: "t") { _ in TerminalLogHandler(io: io, level: .trace) }
        let transport = StubTransport { request, _ in
            if request.url.path == "/api/auth/refresh" { return .json(Self.renewed) }
            return request.header("Authorization") == "Bearer new-access" ? .json("{}") : .json("{}", status: 401)
        }
        var api = client(transport, store, logger: logger)
        api = APIClient(service: .account, baseURL: base, transport: transport, authenticator: api.authenticator, logger: logger)
        _ = try await api.send(.get("/api/data"))
        #expect(!io.stderr.isEmpty)
        for secret in ["old-access", "new-access", "refresh-1", "refresh-2"] {
            #expect(!io.stderr.contains(secret))
            #expect(!"\(store.load())".contains(secret))
        }
        #expect(!"\(store.load().account!)".contains("new-access"))
    }
}
