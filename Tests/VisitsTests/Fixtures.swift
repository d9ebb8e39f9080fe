import BradOSCore
import BradOSNetworking
import Foundation
import Synchronization
@testable import Visits

func visit(_ id: String, hoursAgo: Double, place: String = "Clinic") -> Visit {
    Visit(id: id, place: place, address: "1 Main St", visitedAt: Date(timeIntervalSince1970: 1_800_000_000 - hoursAgo * 3600),
          durationMinutes: 30, notes: "notes for \(id)", createdAt: Date(timeIntervalSince1970: 1_800_000_000 - hoursAgo * 3600))
}

/// A ``VisitsAPI`` double over a list, recording calls; can fail on demand.
final class FakeVisitsAPI: VisitsAPI {
    struct State {
        var visits: [Visit]
        var calls: [String] = []
        var failure: NetworkError?
        var onDelete: (@Sendable () -> Void)?
        var onList: (@Sendable () -> Void)?
    }
    let state: Mutex<State>

    init(_ visits: [Visit], failure: NetworkError? = nil) { state = Mutex(State(visits: visits, failure: failure)) }

    var calls: [String] { state.withLock { $0.calls } }
    func setVisits(_ visits: [Visit]) { state.withLock { $0.visits = visits } }
    func fail(with error: NetworkError?) { state.withLock { $0.failure = error } }
    func onDelete(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.onDelete = body } }
    /// Runs while a list request is "in flight" (to race it with other commands).
    func onList(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.onList = body } }

    private func call(_ name: String) throws {
        try state.withLock { state in
            state.calls.append(name)
            if let failure = state.failure { throw failure }
        }
    }

    func list() async throws -> [Visit] {
        state.withLock { $0.onList }?()
        try call("list")
        return state.withLock { $0.visits }
    }

    func visit(id: String) async throws -> Visit {
        try call("visit \(id)")
        guard let found = state.withLock({ $0.visits.first { $0.id == id } }) else {
            throw NetworkError.http(status: 404, method: "GET", path: "/api/visits/\(id)", message: nil, retryAfter: nil)
        }
        return found
    }

    func create(_ new: NewVisit) async throws -> Visit {
        try call("create")
        let created = Visit(id: "v_new", place: new.place, visitedAt: new.visitedAt, durationMinutes: new.durationMinutes, notes: new.notes)
        state.withLock { $0.visits.insert(created, at: 0) }
        return created
    }

    func delete(id: String) async throws {
        let hook = state.withLock { $0.onDelete }
        hook?()
        try call("delete \(id)")
        let existed = state.withLock { state in
            defer { state.visits.removeAll { $0.id == id } }
            return state.visits.contains { $0.id == id }
        }
        if !existed { throw NetworkError.http(status: 404, method: "DELETE", path: "/api/visits/\(id)", message: nil, retryAfter: nil) }
    }
}
