import BradOSCore
import BradOSNetworking
import Foundation

/// The BradOS visit endpoints.
public protocol VisitsAPI: Sendable {
    /// `GET /api/visits`, newest first.
    func list() async throws -> [Visit]
    /// `GET /api/visits/{id}`.
    func visit(id: String) async throws -> Visit
    /// `POST /api/visits`.
    func create(_ visit: NewVisit) async throws -> Visit
    /// `DELETE /api/visits/{id}`.
    func delete(id: String) async throws
}

/// ``VisitsAPI`` over the core ``APIClient``.
public struct VisitsRESTClient: VisitsAPI {
    let client: APIClient
    /// The retry policy of reads that have a cached fallback (fewer retries: the user has
    /// something to look at). `nil` uses the client's.
    let readPolicy: RetryPolicy?

    public init(client: APIClient, readPolicy: RetryPolicy? = nil) {
        self.client = client
        self.readPolicy = readPolicy
    }

    public func list() async throws -> [Visit] {
        var request = APIRequest.get("/api/visits")
        request.retry = readPolicy
        request.responseLimit = ResponseLimit.wholeList
        return try await client.decode([Visit].self, request)
    }

    public func visit(id: String) async throws -> Visit {
        try await client.decode(Visit.self, .get("/api/visits/\(PathComponent.escape(id))"))
    }

    public func create(_ visit: NewVisit) async throws -> Visit {
        try await client.decode(Visit.self, .json("POST", "/api/visits", body: visit))
    }

    public func delete(id: String) async throws {
        _ = try await client.send(.delete("/api/visits/\(PathComponent.escape(id))"))
    }
}
