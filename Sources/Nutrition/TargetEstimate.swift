import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// Daily targets estimated for a weight or target weight queued and not confirmed yet (spec
/// 004 §2.6, optimistic update): shown at once, marked as estimated, until the service's plan
/// replaces them (`plan sync`); a change the service refuses leaves the queue, and with it the
/// estimate (the refusal is said by the command that sent it).
///
/// A new weight scales the energy, protein and water targets by the weight ratio (the spec's
/// `estimateTargets`), measured against the last weight the service has; the weekly rate stays.
/// A new weight or target weight moves the timeline: the weeks to the target at that rate.
public struct TargetEstimate: Sendable, Equatable, Encodable {
    /// The targets as estimated (every figure; ``estimated`` says which are estimates).
    public var targets: Targets
    /// The names of the figures that are estimates (`calorieTarget`, `estimatedWeeks`…).
    public var estimated: [String]
    /// The queued weight it is estimated for, and the service's weight it scales from.
    public var weight: Double?
    public var fromWeight: Double?
    /// The queued target weight it is estimated for.
    public var targetWeight: Double?

    /// The estimate for what is queued, or `nil` when nothing queued changes the figures (or
    /// the plan gives nothing to scale from).
    /// - Parameters:
    ///   - plan: the service's plan.
    ///   - weights: the weights the service has (the last is the plan's).
    ///   - queued: the changes not sent yet.
    public static func estimate(_ plan: NutritionPlan, weights: WeightHistory?, queued: [PendingOperation]) -> TargetEstimate? {
        let ordered = queued.sorted { $0.createdAt < $1.createdAt }
        let newWeight = ordered.last { $0.kind == .updateWeight }?.weightKg
        let newTarget = ordered.last { $0.kind == .updateTargetWeight }?.targetWeightKg
        guard newWeight != nil || newTarget != nil else { return nil }
        let fromWeight = weights?.weights.last?.weight
        var targets = plan.targets
        var estimated: [String] = []
        if let newWeight, let fromWeight, fromWeight > 0, newWeight != fromWeight {
            let ratio = newWeight / fromWeight
            func scaled(_ value: Int) -> Int { Int((Double(value) * ratio).rounded()) }
            targets.bmr = scaled(targets.bmr)
            targets.tdee = scaled(targets.tdee)
            targets.calorieTarget = scaled(targets.calorieTarget)
            targets.proteinTarget = scaled(targets.proteinTarget)
            targets.waterTarget = scaled(targets.waterTarget)
            estimated += ["bmr", "tdee", "calorieTarget", "proteinTarget", "waterTarget"]
        }
        if let weight = newWeight ?? fromWeight, let target = newTarget ?? weights?.targetWeight, targets.weeklyRate != 0 {
            let weeks = Int((abs(weight - target) / abs(targets.weeklyRate)).rounded(.up))
            if weeks != plan.targets.estimatedWeeks {
                targets.estimatedWeeks = weeks
                targets.projectedDate = nil
                estimated += ["estimatedWeeks", "projectedDate"]
            }
        }
        guard !estimated.isEmpty else { return nil }
        return TargetEstimate(targets: targets, estimated: estimated, weight: newWeight, fromWeight: newWeight == nil ? nil : fromWeight,
                              targetWeight: newTarget)
    }

    /// Whether a figure is an estimate.
    public func isEstimated(_ figure: String) -> Bool { estimated.contains(figure) }

    /// `the queued weight 80 kg (the plan's: 84.5 kg)`, in `forms`' unit.
    public func basis(_ forms: DisplayForms) -> String {
        var parts: [String] = []
        if let weight { parts.append("weight \(forms.weightBrief(weight))" + (fromWeight.map { " (the plan's: \(forms.weightBrief($0)))" } ?? "")) }
        if let targetWeight { parts.append("target weight \(forms.weightBrief(targetWeight))") }
        return "the queued " + parts.joined(separator: " and ")
    }

    enum CodingKeys: String, CodingKey { case targets, estimated, weightKg, fromWeightKg, targetWeightKg, weight, fromWeight, targetWeight }

    /// Kilograms in `weightKg`, `fromWeightKg`, `targetWeightKg`; the names before 0.4 beside them (deprecated).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(targets, forKey: .targets)
        try container.encode(estimated, forKey: .estimated)
        for (value, new, old) in [(weight, CodingKeys.weightKg, CodingKeys.weight), (fromWeight, .fromWeightKg, .fromWeight),
                                  (targetWeight, .targetWeightKg, .targetWeight)] {
            try container.encode(value, forKey: new)
            try container.encode(value, forKey: old)
        }
    }
}
