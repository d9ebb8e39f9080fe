import BradOSCore
import BradOSNetworking
import BradOSTerminal
import Foundation
import Logging
@testable import Nutrition
import TestSupport
import Testing

/// `plan set target-weight|goal|activity`: queued like a weight, shown pending, sent with a
/// forced recompute, rolled back on a refusal.
@Suite("Plan inputs: target weight, goal and activity level")
struct NutritionInputsTests {
    static func refusal(_ message: String) -> NetworkError {
        .http(status: 400, method: "PUT", path: "/auth/profile", message: message, retryAfter: nil)
    }

    @Test("offline, each change is validated, queued durably (a queue of format 2) and shown pending; nothing is sent")
    func queuedOffline() async throws {
        let setup = NutritionSetup()
        let repository = setup.repository(offline: true)
        let (target, report) = try await repository.set(.targetWeight(77.25))
        #expect(report == nil)
        _ = try await repository.set(.goal(.gainMuscle))
        _ = try await repository.set(.activityLevel(.veryActive))
        _ = try await repository.set(.goal(.maintain))
        #expect(setup.api.calls.isEmpty)
        #expect(target.kind == .updateTargetWeight && target.targetWeightKg == 77.25)
        let queued = try PendingQueue(url: setup.queueURL).all()
        #expect(queued.map(\.kind) == [.updateTargetWeight, .updateGoal, .updateActivityLevel, .updateGoal])
        // The latest value of each is what is shown, marked pending.
        #expect(setup.repository().pendingInputs == PendingInputs(queued))
        #expect(setup.repository().pendingInputs.summary(.standard) == "target weight 77.3 kg, goal maintain, activity very_active")
        // A brados from before `plan set` reads format 1 only: it is told the queue is newer.
        let file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: setup.queueURL)) as? [String: Any])
        #expect(file["formatVersion"] as? Int == 2)
    }

    @Test("a queue of weights only stays format 1, readable by an older brados")
    func weightsStayFormatOne() async throws {
        let setup = NutritionSetup()
        _ = try await setup.repository(offline: true).updateWeight(84)
        let file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: setup.queueURL)) as? [String: Any])
        #expect(file["formatVersion"] as? Int == 1)
    }

    @Test("a target weight outside 30–300 kg is refused before anything is queued (exit 64)")
    func validated() async throws {
        let setup = NutritionSetup()
        for value in [29.9, 300.5, .nan, -.infinity] {
            let error = await #expect(throws: NutritionError.self) { try await setup.repository().set(.targetWeight(value)) }
            #expect(error.map { ExitStatus.code(for: $0) } == 64)
        }
        #expect(try PendingQueue(url: setup.queueURL).all().isEmpty)
        #expect(setup.api.calls.isEmpty)
    }

    @Test("online, the queue is sent in order (each change its own field), then the plan is recomputed once, forced")
    func sentWithForcedRecompute() async throws {
        let setup = NutritionSetup(api: FakeNutritionAPI(plans: [Fixtures.plan(id: 2, targets: Fixtures.targets(calories: 2600, protein: 190))]))
        _ = try await setup.repository(offline: true).updateWeight(85)
        _ = try await setup.repository(offline: true).set(.goal(.gainMuscle))
        let (_, report) = try await setup.repository().set(.targetWeight(90))
        let sent = try #require(report)
        #expect(setup.api.calls == ["update", "update", "update", "generate(force)"])
        #expect(setup.api.state.withLock { $0.updates.map(\.currentWeight) } == [85, nil, nil])
        #expect(setup.api.state.withLock { $0.updates.map(\.goal) } == [nil, .gainMuscle, nil])
        #expect(setup.api.state.withLock { $0.updates.map(\.targetWeight) } == [nil, nil, 90])
        #expect(sent.applied.count == 3 && sent.remaining.isEmpty)
        #expect(sent.plan?.data.plan.id == 2)
        #expect(setup.repository().pendingInputs.isEmpty)
        // On the wire: only the changed field, the goal as the service spells it.
        let body = String(decoding: try JSONCoding.encode(ProfileUpdate(goal: .gainMuscle, activityLevel: .extremelyActive)), as: UTF8.self)
        #expect(body.contains(#""goal":"gain_muscle""#) && body.contains(#""activityLevel":"extremely_active""#) && !body.contains("Weight"))
    }

    @Test("a change the service refuses leaves the queue: the pending value is rolled back, and the user is told which and why")
    func refusalRollsBack() async throws {
        let setup = NutritionSetup()
        _ = try await setup.repository().current()
        setup.api.set { $0.refuse = { $0.goal == .gainMuscle ? NutritionInputsTests.refusal("goal must be one of lose_weight, maintain.") : nil } }
        let repository = setup.repository()
        let operation = try repository.queue(.goal(.gainMuscle))
        #expect(repository.pendingInputs.goal == .gainMuscle, "shown pending at once, before anything is sent")
        let report = try await repository.sync()
        #expect(report.dropped.map(\.operation.id) == [operation.id])
        #expect(report.applied.isEmpty && !setup.api.calls.contains("generate(force)"), "nothing applied: no recompute")
        #expect(setup.repository().pendingInputs.isEmpty, "rolled back")
        #expect(try PendingQueue(url: setup.queueURL).all().isEmpty)
        let error = try #require(report.dropped.first?.error)
        #expect(ExitStatus.code(for: error) == 7)
        let io = CapturingIO(environment: [:])
        try NutritionRenderer(output: Output(io: io, format: .human)).sync(report, queued: operation)
        #expect(io.stderr.contains("rolled back goal gain_muscle: your plan keeps the goal the service has"), "\(io.stderr)")
        #expect(io.stderr.contains("goal must be one of"))
    }

    @Test("plan show marks the pending values: the target weight in the weight line, the rest on a line of their own; --json lists them")
    func shownPending() throws {
        let history = WeightHistory(targetWeight: 78, weights: [.init(date: "2027-01-14", weight: 86), .init(date: "2027-01-15", weight: 85.5)])
        let queued = [NutritionInputChange.targetWeight(75).operation(at: Fixtures.start), NutritionInputChange.activityLevel(.sedentary).operation(at: Fixtures.start)]
        let result = NutritionPlanResult(data: Fixtures.plan(), source: .cache(age: 60), change: nil, weights: history)
        let trend = NutritionRenderer.Trend(choice: .none("test"), area: (80, 24), queued: queued, now: Fixtures.start)
        let io = CapturingIO(environment: [:])
        try NutritionRenderer(output: Output(io: io, format: .human), trend: trend).render(result, view: .summary)
        #expect(io.stdout.contains("Pending: target weight 75 kg, activity sedentary"), "\(io.stdout)")
        #expect(io.stdout.contains("target 75.0 kg (pending)"))
        let json = CapturingIO(environment: [:])
        try NutritionRenderer(output: Output(io: json, format: .json), trend: trend).render(result, view: .summary)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((document["pending"] as? [String: Any])?["activityLevel"] as? String == "sedentary")
        #expect((document["weights"] as? [String: Any])?["targetWeightPending"] as? Bool == true)
        // Nothing pending: no such line, no such key.
        let plain = CapturingIO(environment: [:])
        try NutritionRenderer(output: Output(io: plain, format: .human), trend: .init(choice: .none("test"), area: (80, 24), queued: [], now: Fixtures.start))
            .render(result, view: .summary)
        #expect(!plain.stdout.contains("Pending") && plain.stdout.contains("target 78.0 kg") && !plain.stdout.contains("(pending)"))
    }
}

/// Spec §6.5: no log line at any level carries a weight, a target or any value of the body.
@Suite("Plan logs: never a value of the person's body")
struct NutritionLogTests {
    @Test("queueing, sending, dropping and refusing at trace level: the values sent appear in no log line")
    func noBodyValuesLogged() async throws {
        let setup = NutritionSetup()
        let logs = CapturingIO(environment: [:])
        let logger = Logger(label: "brados.plan") { _ in TerminalLogHandler(io: logs, level: .trace) }
        _ = try await setup.repository(logger: logger).current()
        setup.api.set {
            $0.updateFailures[84.7] = NutritionInputsTests.refusal("currentWeight 84.7 is not accepted.")
            $0.refuse = { $0.targetWeight == 71.3 ? NutritionInputsTests.refusal("targetWeight 71.3 is not accepted.") : nil }
            $0.weightsFailure = NutritionError.invalidResponse("weight 83.9 on 2027-01-15 is outside 30–300 kg")
        }
        _ = try await setup.repository(offline: true, logger: logger).updateWeight(84.7)
        _ = try await setup.repository(offline: true, logger: logger).updateWeight(82.6)
        _ = try await setup.repository(logger: logger).set(.targetWeight(71.3))
        _ = try await setup.repository(logger: logger).set(.targetWeight(76.4))
        _ = try await setup.repository(logger: logger).set(.goal(.gainMuscle))
        _ = try await setup.repository(logger: logger).set(.activityLevel(.extremelyActive))
        #expect(setup.api.state.withLock { $0.updates.count } == 4, "82.6, 76.4, the goal and the activity were sent")
        #expect(logs.stderr.contains("brados: debug: queued a weight change"), "\(logs.stderr)")
        #expect(logs.stderr.contains("dropped a target-weight change"))
        for value in ["84.7", "82.6", "71.3", "76.4", "83.9", "gain_muscle", "extremely_active"] {
            #expect(!logs.stderr.contains(value), "a log line carries \(value): \(logs.stderr)")
        }
        // Nothing at the default level (warning): a refusal is the command's output, not a log.
        #expect(!logs.stderr.contains("warning:"))
    }
}
