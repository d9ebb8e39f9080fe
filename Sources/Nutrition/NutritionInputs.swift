import ArgumentParser
import BradOSCore
import BradOSTerminal
import Foundation

/// What the person wants from the plan (`brados plan set goal`): the values the service knows.
/// Shells complete them (``ExpressibleByArgument`` lists every case).
public enum NutritionGoal: String, Codable, Sendable, CaseIterable, ExpressibleByArgument {
    case loseWeight = "lose_weight"
    case maintain
    case gainMuscle = "gain_muscle"
}

/// How active the person is (`brados plan set activity`): the service's five levels, each
/// with its TDEE multiplier (1.2 to 1.9).
public enum ActivityLevel: String, Codable, Sendable, CaseIterable, ExpressibleByArgument {
    case sedentary
    case lightlyActive = "lightly_active"
    case moderatelyActive = "moderately_active"
    case veryActive = "very_active"
    case extremelyActive = "extremely_active"
}

/// A change to what the plan is computed from, made by `brados plan set`: each one invalidates
/// the plan, is queued like a weight and is sent with a forced recompute.
public enum NutritionInputChange: Sendable, Equatable {
    /// Kilograms, 30–300 (the range the service takes).
    case targetWeight(Double)
    case goal(NutritionGoal)
    case activityLevel(ActivityLevel)

    /// The range a target weight must fall in, as for a weight.
    public static let weightRange = WeightInput.range

    /// Checks the value before anything is queued.
    /// - Throws: ``NutritionError/invalidInput(_:fromServer:)`` (exit 64) for a target weight out of range.
    public func validate() throws {
        if case let .targetWeight(kilograms) = self, !(kilograms.isFinite && Self.weightRange.contains(kilograms)) {
            throw NutritionError.invalidInput("target weight must be 30–300 kg (got \(Format.number(kilograms)))", fromServer: false)
        }
    }

    /// The queued operation for this change, made at `date`.
    func operation(at date: Date) -> PendingOperation {
        switch self {
        case let .targetWeight(kilograms):
            PendingOperation(kind: .updateTargetWeight, weightKg: nil, targetWeightKg: (kilograms * 100).rounded() / 100, createdAt: date)
        case let .goal(goal): PendingOperation(kind: .updateGoal, weightKg: nil, goal: goal, createdAt: date)
        case let .activityLevel(level): PendingOperation(kind: .updateActivityLevel, weightKg: nil, activityLevel: level, createdAt: date)
        }
    }
}

/// The plan inputs changed here and not confirmed by the service yet: the latest queued
/// value of each (shown in place of the confirmed one, marked pending, until `plan sync`
/// sends it; a refusal rolls it back).
public struct PendingInputs: Sendable, Equatable, Encodable {
    /// Kilograms (in `--json` as `targetWeightKg`, and `targetWeight` for one release, deprecated).
    public var targetWeight: Double?
    public var goal: NutritionGoal?
    public var activityLevel: ActivityLevel?

    public init(_ queued: [PendingOperation]) {
        for operation in queued.sorted(by: { $0.createdAt < $1.createdAt }) {
            switch operation.kind {
            case .updateWeight: break
            case .updateTargetWeight: targetWeight = operation.targetWeightKg ?? targetWeight
            case .updateGoal: goal = operation.goal ?? goal
            case .updateActivityLevel: activityLevel = operation.activityLevel ?? activityLevel
            }
        }
    }

    public var isEmpty: Bool { targetWeight == nil && goal == nil && activityLevel == nil }

    enum CodingKeys: String, CodingKey { case targetWeightKg, targetWeight, goal, activityLevel }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(targetWeight, forKey: .targetWeightKg)
        try container.encode(targetWeight, forKey: .targetWeight)
        try container.encode(goal, forKey: .goal)
        try container.encode(activityLevel, forKey: .activityLevel)
    }

    /// `target weight 75 kg, goal gain_muscle` (the weight in `forms`' unit).
    public func summary(_ forms: DisplayForms) -> String {
        var parts: [String] = []
        if let targetWeight { parts.append("target weight \(forms.weightBrief(targetWeight))") }
        if let goal { parts.append("goal \(goal.rawValue)") }
        if let activityLevel { parts.append("activity \(activityLevel.rawValue)") }
        return parts.joined(separator: ", ")
    }
}
