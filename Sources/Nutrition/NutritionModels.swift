import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// What `POST /v1/plans/generate` answers inside `{success, data}`.
public struct NutritionPlan: Codable, Sendable, Equatable {
    public var plan: NutritionPlanInfo
    public var targets: Targets
    public var whyItWorks: WhyItWorks
    public var recomputed: Bool
    @NullWhenAbsent public var previousTargets: Targets?

    public init(plan: NutritionPlanInfo, targets: Targets, whyItWorks: WhyItWorks, recomputed: Bool, previousTargets: Targets?) {
        self.plan = plan
        self.targets = targets
        self.whyItWorks = whyItWorks
        self.recomputed = recomputed
        self.previousTargets = previousTargets
    }
}

/// The plan period.
public struct NutritionPlanInfo: Codable, Sendable, Equatable {
    public var id: Int
    /// The plan's owner as the service names them: the spec's `Plan.userId` (a number there,
    /// the reference server's user id, a UUID, here), kept as text; `nil` from a service that
    /// sends none.
    @NullWhenAbsent public var userId: String?
    public var name: String
    @NullWhenAbsent public var description: String?
    public var startDate: Date
    public var endDate: Date
    @NullWhenAbsent public var status: String?

    public init(id: Int, userId: String? = nil, name: String, description: String?, startDate: Date, endDate: Date, status: String?) {
        self.id = id
        self.userId = userId
        self.name = name
        self.description = description
        self.startDate = startDate
        self.endDate = endDate
        self.status = status
    }

    enum CodingKeys: String, CodingKey { case id, userId, name, description, startDate, endDate, status }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        // A number (as the spec types it) or text (a UUID): both are the same id, kept as text.
        if let number = try? container.decodeIfPresent(Int.self, forKey: .userId) {
            userId = String(number)
        } else {
            userId = try container.decodeIfPresent(String.self, forKey: .userId)
        }
        name = try container.decode(String.self, forKey: .name)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        startDate = try container.decode(Date.self, forKey: .startDate)
        endDate = try container.decode(Date.self, forKey: .endDate)
        status = try container.decodeIfPresent(String.self, forKey: .status)
    }
}

/// The computed daily targets.
public struct Targets: Codable, Sendable, Equatable {
    public var bmr: Int
    public var tdee: Int
    public var calorieTarget: Int
    public var proteinTarget: Int
    /// Millilitres.
    public var waterTarget: Int
    /// Kilograms per week (negative: losing).
    public var weeklyRate: Double
    @NullWhenAbsent public var estimatedWeeks: Int?
    @NullWhenAbsent public var projectedDate: Date?

    public init(bmr: Int, tdee: Int, calorieTarget: Int, proteinTarget: Int, waterTarget: Int, weeklyRate: Double,
                estimatedWeeks: Int? = nil, projectedDate: Date? = nil) {
        self.bmr = bmr
        self.tdee = tdee
        self.calorieTarget = calorieTarget
        self.proteinTarget = proteinTarget
        self.waterTarget = waterTarget
        self.weeklyRate = weeklyRate
        self.estimatedWeeks = estimatedWeeks
        self.projectedDate = projectedDate
    }
}

/// One "why it works" card.
public struct Explanation: Codable, Sendable, Equatable {
    public var title: String
    public var explanation: String
    public var science: String

    public init(title: String, explanation: String, science: String) {
        self.title = title
        self.explanation = explanation
        self.science = science
    }
}

public struct WhyItWorks: Codable, Sendable, Equatable {
    public var calorieTarget: Explanation
    public var proteinTarget: Explanation
    public var waterTarget: Explanation
    public var weeklyRate: Explanation

    public init(calorieTarget: Explanation, proteinTarget: Explanation, waterTarget: Explanation, weeklyRate: Explanation) {
        self.calorieTarget = calorieTarget
        self.proteinTarget = proteinTarget
        self.waterTarget = waterTarget
        self.weeklyRate = weeklyRate
    }

    /// The cards in display order.
    public var all: [Explanation] { [calorieTarget, proteinTarget, waterTarget, weeklyRate] }
}

/// The profile the plan is computed from (`GET /auth/profile`).
public struct NutritionProfile: Codable, Sendable, Equatable {
    public var currentWeight: Double?
    public var targetWeight: Double?
    public var goal: String?
    public var activityLevel: String?
    public var height: Double?
    public var age: Int?
    public var sex: String?
    public var onboardingCompleted: Bool?
}

/// A partial profile update (`PUT /auth/profile`); absent fields are left as they are.
public struct ProfileUpdate: Codable, Sendable, Equatable {
    public var currentWeight: Double?
    /// The day the weight was logged (`2026-11-24`, UTC), when it was queued before it was
    /// sent: the service records the weight on that day, not the day it arrived. A service
    /// without a weight history ignores it.
    public var currentWeightDate: String?
    /// Kilograms, 30–300.
    public var targetWeight: Double?
    public var goal: NutritionGoal?
    public var activityLevel: ActivityLevel?

    public init(currentWeight: Double? = nil, currentWeightDate: String? = nil, targetWeight: Double? = nil,
                goal: NutritionGoal? = nil, activityLevel: ActivityLevel? = nil) {
        self.currentWeight = currentWeight
        self.currentWeightDate = currentWeightDate
        self.targetWeight = targetWeight
        self.goal = goal
        self.activityLevel = activityLevel
    }
}

extension NutritionPlan {
    /// Whether two answers show the same plan (`recomputed` and `previousTargets` describe
    /// how an answer was made, not the plan).
    public func sameContent(as other: NutritionPlan) -> Bool {
        plan == other.plan && targets == other.targets && whyItWorks == other.whyItWorks
    }

    /// The ranges a plan must fall in before it is cached or shown.
    public static let ranges = (bmr: 500...5000, tdee: 500...10000, calories: 500...10000, protein: 20...500, water: 500...10000)

    /// Checks the targets and dates.
    /// - Throws: ``NutritionError/invalidTargets(_:)`` naming the first value out of range.
    public func validate() throws {
        let t = targets
        let r = Self.ranges
        if !r.bmr.contains(t.bmr) { throw NutritionError.invalidTargets("bmr \(t.bmr) is outside 500–5000 kcal") }
        if !r.tdee.contains(t.tdee) { throw NutritionError.invalidTargets("tdee \(t.tdee) is outside 500–10000 kcal") }
        if t.tdee <= t.bmr { throw NutritionError.invalidTargets("tdee \(t.tdee) is not above bmr \(t.bmr)") }
        if !r.calories.contains(t.calorieTarget) { throw NutritionError.invalidTargets("calorie target \(t.calorieTarget) is outside 500–10000 kcal") }
        if !r.protein.contains(t.proteinTarget) { throw NutritionError.invalidTargets("protein target \(t.proteinTarget) g is outside 20–500 g") }
        if !r.water.contains(t.waterTarget) { throw NutritionError.invalidTargets("water target \(t.waterTarget) ml is outside 500–10000 ml") }
        if !t.weeklyRate.isFinite || abs(t.weeklyRate) > 2 { throw NutritionError.invalidTargets("weekly rate \(t.weeklyRate) kg is not plausible") }
        if plan.startDate >= plan.endDate { throw NutritionError.invalidTargets("the plan starts (\(Format.day(plan.startDate))) after it ends (\(Format.day(plan.endDate)))") }
    }
}

/// A change between two plans worth telling the user about.
public struct NutritionPlanChange: Codable, Sendable, Equatable {
    public var previous: Targets
    public var new: Targets

    /// More than 50 kcal or more than 10 g of protein apart.
    public static func significant(from previous: Targets, to new: Targets) -> NutritionPlanChange? {
        guard abs(new.calorieTarget - previous.calorieTarget) > 50 || abs(new.proteinTarget - previous.proteinTarget) > 10 else { return nil }
        return NutritionPlanChange(previous: previous, new: new)
    }

    /// The change of the timeline in weeks (new − previous), when both have one and they differ.
    public var timelineWeeks: Int? {
        guard let before = previous.estimatedWeeks, let after = new.estimatedWeeks, before != after else { return nil }
        return after - before
    }
}
