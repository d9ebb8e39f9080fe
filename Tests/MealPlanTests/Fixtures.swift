import BradOSCore
import BradOSNetworking
import Foundation
@testable import MealPlan
import Synchronization

func makeSession(_ id: String, finalized: Bool) -> MealPlanSession {
    let meals = [Meal(mealType: "breakfast", recipeName: "Oats", ingredients: ["oats"], calories: 400, protein: 14),
                 Meal(mealType: "lunch", recipeName: "Salmon bowl", ingredients: ["salmon"], calories: 600, protein: 40),
                 Meal(mealType: "dinner", recipeName: "Curry", ingredients: ["chickpeas"], calories: 620, protein: 20)]
    let names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    return MealPlanSession(
        id: id, createdAt: Date(timeIntervalSince1970: 1_790_000_000), finalizedAt: finalized ? Date(timeIntervalSince1970: 1_790_000_600) : nil,
        isFinalized: finalized, days: (0..<7).map { MealPlanDay(day: $0, name: names[$0], meals: meals) }, critiques: [])
}

/// A ``MealPlanAPI`` double: serves sessions from a dictionary and records every call.
final class FakeMealPlanAPI: MealPlanAPI {
    struct State {
        var sessions: [String: MealPlanSession] = [:]
        var latestID: String?
        var calls: [String] = []
        var nextID = 1
    }
    let state = Mutex(State())

    init(sessions: [MealPlanSession] = [], latest: String? = nil) {
        state.withLock { state in
            for session in sessions { state.sessions[session.id] = session }
            state.latestID = latest
        }
    }

    var calls: [String] { state.withLock { $0.calls } }

    func session(id: String) async throws -> MealPlanSession {
        try state.withLock { state in
            state.calls.append("session \(id)")
            guard let session = state.sessions[id] else {
                throw NetworkError.http(status: 404, method: "GET", path: "/api/mealplans/\(id)", message: nil, retryAfter: nil)
            }
            return session
        }
    }

    func latest() async throws -> MealPlanSession? {
        state.withLock { state in
            state.calls.append("latest")
            return state.latestID.flatMap { state.sessions[$0] }
        }
    }

    func generate() async throws -> MealPlanSession {
        state.withLock { state in
            state.calls.append("generate")
            let draft = makeSession("draft\(state.nextID)", finalized: false)
            state.nextID += 1
            state.sessions[draft.id] = draft
            state.latestID = draft.id
            return draft
        }
    }

    func critique(id: String, text: String) async throws -> MealPlanSession {
        state.withLock { state in
            state.calls.append("critique \(id)")
            state.sessions[id]?.critiques.append(MealPlanCritique(text: text, createdAt: Date()))
            return state.sessions[id]!
        }
    }

    func finalize(id: String) async throws -> MealPlanSession {
        state.withLock { state in
            state.calls.append("finalize \(id)")
            state.sessions[id]?.isFinalized = true
            state.sessions[id]?.finalizedAt = Date()
            return state.sessions[id]!
        }
    }
}
