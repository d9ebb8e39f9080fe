import BradOSCore
import BradOSNetworking
import Foundation

/// The nutrition plan service. The default is ``NutritionRESTClient``; tests inject doubles.
public protocol NutritionAPI: Sendable {
    /// `POST /v1/plans/generate`.
    func generate(forceRecompute: Bool) async throws -> NutritionPlan
    /// `GET /auth/profile`.
    func profile() async throws -> NutritionProfile
    /// `PUT /auth/profile`.
    func updateProfile(_ update: ProfileUpdate) async throws -> NutritionProfile
    /// `GET /auth/profile/weights`: the logged weights; `nil` when the service keeps none.
    func weights() async throws -> WeightHistory?
}

extension NutritionAPI {
    /// A service without a weight history.
    public func weights() async throws -> WeightHistory? { nil }
}

/// The plan API over the core ``APIClient`` (bearer token, retries, renewal). Responses are
/// `{success, data}`; `success: false` is ``NutritionError/invalidResponse(_:)``, a body of the wrong
/// shape the core's ``NetworkError/invalidResponse(path:detail:)``. The statuses that mean
/// something to the plan come out as ``NutritionError`` (see ``NutritionError/map(_:)``), every other
/// failure as the core's ``NetworkError``.
public struct NutritionRESTClient: NutritionAPI {
    public let client: APIClient

    /// Retries as the core does (3, backoff from 1 s), but a `Retry-After` over 10 s is
    /// reported with its time instead of waited out, and a 503 is never retried: to this
    /// service it means maintenance (``NutritionError/maintenance``), which outlasts a retry.
    public static let policy = RetryPolicy(maxRetryAfter: .seconds(10), neverRetriedStatuses: [503])

    public init(client: APIClient) { self.client = client }

    struct Envelope<T: Decodable>: Decodable {
        var success: Bool
        var data: T?
        var error: String?
    }

    public func generate(forceRecompute: Bool) async throws -> NutritionPlan {
        var request = try APIRequest.json("POST", "/v1/plans/generate", body: ["forceRecompute": forceRecompute])
        request.repeatable = true  // it computes the plan: asked twice, the same plan
        request.retry = Self.policy
        return try await send(NutritionPlan.self, request)
    }

    public func profile() async throws -> NutritionProfile {
        var request = APIRequest.get("/auth/profile")
        request.retry = Self.policy
        return try await send(NutritionProfile.self, request)
    }

    public func updateProfile(_ update: ProfileUpdate) async throws -> NutritionProfile {
        var request = try APIRequest.json("PUT", "/auth/profile", body: update)
        request.retry = Self.policy
        return try await send(NutritionProfile.self, request)
    }

    public func weights() async throws -> WeightHistory? {
        var request = APIRequest.get("/auth/profile/weights")
        // Asked beside the plan, which waits for it two seconds at most: one try, never the
        // plan's retries and backoff (the cached weights stay).
        request.retry = RetryPolicy(maxRetries: 0, retriesConnectionFailures: false)
        do {
            let history = try await send(WeightHistory.self, request)
            try history.validate()
            return history
        } catch NutritionError.notFound {
            return nil
        }
    }

    private func send<T: Decodable>(_ type: T.Type, _ request: APIRequest) async throws -> T {
        let envelope: Envelope<T>
        do {
            envelope = try await client.decode(Envelope<T>.self, request)
        } catch {
            throw NutritionError.map(error)
        }
        guard envelope.success, let data = envelope.data else {
            throw NutritionError.invalidResponse(envelope.error.map { "success was false: \($0)" } ?? "success was false or data was missing")
        }
        return data
    }
}
