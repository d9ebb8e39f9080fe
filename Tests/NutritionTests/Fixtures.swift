@testable import Nutrition
import BradOSCore
import Foundation
import Logging
import Synchronization
import TestSupport

enum Fixtures {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func targets(calories: Int = 2252, protein: Int = 172, weeks: Int? = 16) -> Targets {
        Targets(bmr: 1808, tdee: 2802, calorieTarget: calories, proteinTarget: protein, waterTarget: 3000, weeklyRate: -0.5,
                estimatedWeeks: weeks, projectedDate: weeks.map { start.addingTimeInterval(Double($0) * 7 * 86400) })
    }

    static func plan(id: Int = 1, targets: Targets = targets(), previous: Targets? = nil, recomputed: Bool = true) -> NutritionPlan {
        let card = Explanation(title: "t", explanation: "e", science: "s")
        return NutritionPlan(plan: NutritionPlanInfo(id: id, name: "Week \(id)", description: nil, startDate: start, endDate: start.addingTimeInterval(7 * 86400), status: "active"),
                        targets: targets, whyItWorks: WhyItWorks(calorieTarget: card, proteinTarget: card, waterTarget: card, weeklyRate: card),
                        recomputed: recomputed, previousTargets: previous)
    }
}

/// A ``NutritionAPI`` double: answers in turn from `plans`, records calls, fails on demand.
final class FakeNutritionAPI: NutritionAPI, Sendable {
    struct State {
        var plans: [NutritionPlan]
        var calls: [String] = []
        var weights: [Double] = []
        var generateFailure: (any Error)?
        var updateFailures: [Double: any Error] = [:]
        /// What `weights()` answers; `weightsFailure` wins.
        var history: WeightHistory?
        var weightsFailure: (any Error)?
        /// Every profile update sent, in order.
        var updates: [ProfileUpdate] = []
        /// A failure for an update (a refusal of a goal, say), or `nil` to accept it.
        var refuse: (@Sendable (ProfileUpdate) -> (any Error)?)?
    }
    let state: Mutex<State>

    init(plans: [NutritionPlan] = [Fixtures.plan()]) { state = Mutex(State(plans: plans)) }

    var calls: [String] { state.withLock { $0.calls } }
    var weights: [Double] { state.withLock { $0.weights } }
    func set(_ body: (inout State) -> Void) { state.withLock { body(&$0) } }

    func generate(forceRecompute: Bool) async throws -> NutritionPlan {
        try state.withLock { state in
            state.calls.append(forceRecompute ? "generate(force)" : "generate")
            if let failure = state.generateFailure { throw failure }
            return state.plans.count > 1 ? state.plans.removeFirst() : state.plans[0]
        }
    }

    func weights() async throws -> WeightHistory? {
        try state.withLock { state in
            if let failure = state.weightsFailure { throw failure }
            return state.history
        }
    }

    func profile() async throws -> NutritionProfile {
        state.withLock { $0.calls.append("profile") }
        return NutritionProfile()
    }

    func updateProfile(_ update: ProfileUpdate) async throws -> NutritionProfile {
        await Task.yield()
        return try state.withLock { state in
            state.calls.append("update")
            if let weight = update.currentWeight, let failure = state.updateFailures[weight] { throw failure }
            if let failure = state.refuse?(update) { throw failure }
            state.updates.append(update)
            if let weight = update.currentWeight { state.weights.append(weight) }
            return NutritionProfile(currentWeight: update.currentWeight)
        }
    }
}

struct NutritionSetup {
    let dir = TemporaryDirectory()
    let clock = ManualClock(start: Fixtures.start)
    let api: FakeNutritionAPI

    init(api: FakeNutritionAPI = FakeNutritionAPI()) { self.api = api }

    var cacheDirectory: URL { dir.url.appendingPathComponent("cache/plan") }
    var queueURL: URL { dir.url.appendingPathComponent("data/plan/pending.json") }

    /// A store as a new process would build it (a fresh memory tier).
    func repository(offline: Bool = false, api: FakeNutritionAPI? = nil, logger: Logger = Logger(label: "brados.plan")) -> NutritionRepository {
        let api = api ?? self.api
        return NutritionRepository(cache: NutritionCache(directory: cacheDirectory), queue: PendingQueue(url: queueURL), offline: offline,
                         now: clock.dateProvider, logger: logger, api: { api })
    }
}
