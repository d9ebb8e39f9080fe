import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation
import TestSupport
import Testing

@Suite("Sessions only go to the server that issued them")
struct ServerBindingTests {
    @Test("a session from server A is never sent to server B")
    func refusesOtherServer() async throws {
        let dir = TemporaryDirectory()
        let paths = Paths.resolve(environment: ["BRADOS_HOME": dir.url.path])
        try CredentialStore(paths: paths, profile: .default).save(CredentialSet(account: Credential(
            accessToken: "secret", refreshToken: "r", expiresAt: nil, user: "demo", userID: "1",
            server: "http://127.0.0.1:1111", obtainedAt: Date())))
        let transport = StubTransport { _, _ in .json("{}") }
        func environment(_ server: String) throws -> AppEnvironment {
            try AppEnvironment(io: CapturingIO(environment: ["BRADOS_HOME": dir.url.path, "BRADOS_SERVER": server]),
                               flags: GlobalFlags(), plugins: [], embedded: nil, transport: transport)
        }
        await #expect(throws: AuthError.self) { try await environment("http://127.0.0.1:2222").client(for: .account) }
        #expect(transport.requests.isEmpty)
        let same = try await environment("http://127.0.0.1:1111/").client(for: .account)
        _ = try await same.send(.get("/x"))
        #expect(transport.requests.first?.header("Authorization") == "Bearer secret")
    }
}
