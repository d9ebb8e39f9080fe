import BradOSCore
import Foundation
@testable import Nutrition
import Testing

@Suite("Plan: targets estimated for a queued change (spec 004 §2.6)")
struct TargetEstimateTests {
    let history = WeightHistory(targetWeight: 76, weights: [.init(date: "2026-11-20", weight: 85), .init(date: "2026-11-25", weight: 84.5)])

    func queued(_ kind: PendingOperation.Kind, weight: Double? = nil, target: Double? = nil, at offset: TimeInterval = 0) -> PendingOperation {
        PendingOperation(id: UUID().uuidString, kind: kind, weightKg: weight, targetWeightKg: target, createdAt: Fixtures.start.addingTimeInterval(offset))
    }

    @Test("a queued weight scales energy, protein and water by the weight ratio to the service's last weight; the rate stays; the timeline follows")
    func weight() throws {
        let plan = Fixtures.plan()
        let estimate = try #require(TargetEstimate.estimate(plan, weights: history, queued: [queued(.updateWeight, weight: 80)]))
        let ratio = 80 / 84.5
        #expect(estimate.targets.calorieTarget == Int((2252 * ratio).rounded()))
        #expect(estimate.targets.proteinTarget == Int((172 * ratio).rounded()))
        #expect(estimate.targets.waterTarget == Int((3000 * ratio).rounded()))
        #expect(estimate.targets.bmr == Int((1808 * ratio).rounded()) && estimate.targets.tdee == Int((2802 * ratio).rounded()))
        #expect(estimate.targets.weeklyRate == -0.5)
        // 80 → 76 at 0.5 kg a week: 8 weeks (the plan said 16 from 84.5).
        #expect(estimate.targets.estimatedWeeks == 8)
        #expect(Set(estimate.estimated) == ["bmr", "tdee", "calorieTarget", "proteinTarget", "waterTarget", "estimatedWeeks", "projectedDate"])
        #expect(estimate.weight == 80 && estimate.fromWeight == 84.5)
        #expect(estimate.basis(.standard) == "the queued weight 80 kg (the plan's: 84.5 kg)")
        // The service's plan itself is untouched.
        #expect(plan.targets.calorieTarget == 2252)
    }

    @Test("the latest of several queued weights counts; a queued target weight moves only the timeline")
    func latestAndTarget() throws {
        let plan = Fixtures.plan()
        let two = try #require(TargetEstimate.estimate(plan, weights: history, queued: [queued(.updateWeight, weight: 80, at: 0), queued(.updateWeight, weight: 82, at: 60)]))
        #expect(two.weight == 82 && two.targets.calorieTarget == Int((2252 * 82 / 84.5).rounded()))
        let target = try #require(TargetEstimate.estimate(plan, weights: history, queued: [queued(.updateTargetWeight, target: 80)]))
        #expect(target.targets.calorieTarget == 2252 && !target.isEstimated("calorieTarget"))
        // 84.5 → 80 at 0.5 kg a week: 9 weeks.
        #expect(target.targets.estimatedWeeks == 9 && target.isEstimated("estimatedWeeks"))
    }

    @Test("nothing queued, only other changes, or the same weight as the service's: no estimate")
    func none() {
        let plan = Fixtures.plan()
        #expect(TargetEstimate.estimate(plan, weights: history, queued: []) == nil)
        #expect(TargetEstimate.estimate(plan, weights: history, queued: [PendingOperation(id: "g", kind: .updateGoal, weightKg: nil, goal: .loseWeight, createdAt: Fixtures.start)]) == nil)
        #expect(TargetEstimate.estimate(plan, weights: WeightHistory(targetWeight: nil, weights: [.init(date: "2026-11-25", weight: 80)]),
                                        queued: [queued(.updateWeight, weight: 80)]) == nil)
        // No weight known to scale from: nothing is made up.
        #expect(TargetEstimate.estimate(plan, weights: nil, queued: [queued(.updateWeight, weight: 80)]) == nil)
    }
}
