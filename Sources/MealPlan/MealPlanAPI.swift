import BradOSCore
import BradOSNetworking
import Foundation

/// The BradOS meal plan endpoints.
public protocol MealPlanAPI: Sendable {
    /// `GET /api/mealplans/{id}`.
    func session(id: String) async throws -> MealPlanSession
    /// `GET /api/mealplans/latest`; `nil` when the account has none (404).
    func latest() async throws -> MealPlanSession?
    /// `POST /api/mealplans/generate`.
    func generate() async throws -> MealPlanSession
    /// `POST /api/mealplans/{id}/critique {"text": …}`.
    func critique(id: String, text: String) async throws -> MealPlanSession
    /// `POST /api/mealplans/{id}/finalize`.
    func finalize(id: String) async throws -> MealPlanSession
}

/// ``MealPlanAPI`` over the core ``APIClient`` (auth, retries, errors).
public struct MealPlanRESTClient: MealPlanAPI {
    let client: APIClient

    public init(client: APIClient) { self.client = client }

    public func session(id: String) async throws -> MealPlanSession {
        try await client.decode(MealPlanSession.self, .get("/api/mealplans/\(PathComponent.escape(id))"))
    }

    public func latest() async throws -> MealPlanSession? {
        do {
            return try await client.decode(MealPlanSession.self, .get("/api/mealplans/latest"))
        } catch let error as NetworkError where error.kind == .notFound {
            return nil
        }
    }

    public func generate() async throws -> MealPlanSession {
        try await client.decode(MealPlanSession.self, APIRequest(method: "POST", path: "/api/mealplans/generate"))
    }

    public func critique(id: String, text: String) async throws -> MealPlanSession {
        try await client.decode(MealPlanSession.self, .json("POST", "/api/mealplans/\(PathComponent.escape(id))/critique", body: ["text": text]))
    }

    public func finalize(id: String) async throws -> MealPlanSession {
        var request = APIRequest(method: "POST", path: "/api/mealplans/\(PathComponent.escape(id))/finalize")
        request.repeatable = true  // a finalized plan stays finalized
        return try await client.decode(MealPlanSession.self, request)
    }
}
