import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
@testable import MealPlan
import TestSupport
import Testing

/// The store over the real REST client and ``APIClient``, with a transport double:
/// checks the exact requests on the wire.
@Suite("Meal plan store over HTTP")
struct MealPlanRESTTests {
    let base = URL(string: "http://127.0.0.1:9")!

    func repository(_ dir: TemporaryDirectory, _ transport: StubTransport) -> MealPlanRepository {
        let client = APIClient(service: .account, baseURL: base, transport: transport, authenticator: nil,
                               retrier: Retrier(clock: ManualClock(), random: { 0.5 }))
        return MealPlanRepository(cache: MealPlanCache(directory: dir.path("mealplan")), defaults: KeyValueStore(url: dir.path("defaults.json")),
                             api: { MealPlanRESTClient(client: client) })
    }

    static func body(_ session: MealPlanSession) -> HTTPResponse {
        .json(String(decoding: try! JSONCoding.encode(session), as: UTF8.self))
    }

    @Test("no cache: GET /api/mealplans/latest once, then served from disk with no request")
    func latestThenCache() async throws {
        let dir = TemporaryDirectory()
        let transport = StubTransport { _, _ in Self.body(makeSession("mp_1", finalized: true)) }
        let repository = repository(dir, transport)
        _ = try await repository.latest()
        _ = try await repository.latest()
        #expect(transport.requests.map { "\($0.method) \($0.url.path)" } == ["GET /api/mealplans/latest"])
    }

    @Test("404 from latest is 'no plan yet'; a malformed answer is an invalid response and nothing is cached")
    func notFoundAndMalformed() async throws {
        let dir = TemporaryDirectory()
        let missing = StubTransport { _, _ in .json(#"{"error":{"message":"none"}}"#, status: 404) }
        await #expect(throws: MealPlanError.noPlanYet) { try await repository(dir, missing).latest() }
        let malformed = StubTransport { _, _ in .json(#"{"id":"mp_1","days":"nope"}"#) }
        do {
            _ = try await repository(dir, malformed).latest()
            Issue.record("expected an invalid response")
        } catch let error as NetworkError {
            #expect(ExitStatus.code(for: error) == 6)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path("mealplan/latest-session.json").path))
    }

    @Test("new, critique and finalize send the documented requests; ids are escaped in paths")
    func writes() async throws {
        let dir = TemporaryDirectory()
        let transport = StubTransport { request, _ in
            // The encoded path as sent (URL.path would decode the escapes).
            let path = request.url.absoluteString.replacingOccurrences(of: "http://127.0.0.1:9", with: "")
            switch (request.method, path) {
            case ("POST", "/api/mealplans/generate"): return Self.body(makeSession("mp 1/x", finalized: false))
            case ("POST", "/api/mealplans/mp%201%2Fx/critique"): return Self.body(makeSession("mp 1/x", finalized: false))
            case ("POST", "/api/mealplans/mp%201%2Fx/finalize"), ("GET", "/api/mealplans/mp%201%2Fx"):
                return Self.body(makeSession("mp 1/x", finalized: true))
            default: return .json("{}", status: 404)
            }
        }
        let repository = repository(dir, transport)
        _ = try await repository.startNew()
        _ = try await repository.critique("no fish")
        _ = try await repository.finalize()
        #expect(transport.requests.map { "\($0.method) \($0.url.absoluteString.replacingOccurrences(of: base.absoluteString, with: ""))" } == [
            "POST /api/mealplans/generate", "POST /api/mealplans/mp%201%2Fx/critique",
            "POST /api/mealplans/mp%201%2Fx/finalize", "GET /api/mealplans/mp%201%2Fx",
        ])
        #expect(String(decoding: transport.requests[1].body ?? Data(), as: UTF8.self) == #"{"text":"no fish"}"#)
        #expect(repository.status(now: Date()).sessionId == "mp 1/x")
    }
}
