import Foundation

/// The science behind the nutrition plan, computed honestly:
/// Mifflin–St Jeor BMR, TDEE by activity multiplier, a calorie target from the goal's weekly
/// rate (7,700 kcal per kg), protein and water per kg, and the timeline to the target weight.
struct NutritionScience {
    struct Profile: Codable, Sendable, Equatable {
        var currentWeight: Double
        var targetWeight: Double
        var goal: String
        var activityLevel: String
        var height: Double
        var age: Int
        var sex: String
        var onboardingCompleted: Bool
        var updatedAt: Date
    }

    struct Targets: Codable, Sendable, Equatable {
        var bmr: Int
        var tdee: Int
        var calorieTarget: Int
        var proteinTarget: Int
        var waterTarget: Int
        var weeklyRate: Double
        var estimatedWeeks: Int?
        var projectedDate: Date?
    }

    struct Explanation: Codable, Sendable, Equatable {
        var title: String
        var explanation: String
        var science: String
    }

    struct WhyItWorks: Codable, Sendable, Equatable {
        var calorieTarget: Explanation
        var proteinTarget: Explanation
        var waterTarget: Explanation
        var weeklyRate: Explanation
    }

    static let goals = ["lose_weight", "maintain", "gain_muscle"]
    static let activityMultipliers: [String: Double] = [
        "sedentary": 1.2, "lightly_active": 1.375, "moderately_active": 1.55, "very_active": 1.725, "extremely_active": 1.9,
    ]
    static let sexes = ["male", "female"]

    static func bmr(_ profile: Profile) -> Double {
        10 * profile.currentWeight + 6.25 * profile.height - 5 * Double(profile.age) + (profile.sex == "male" ? 5 : -161)
    }

    static func weeklyRate(_ profile: Profile) -> Double {
        switch profile.goal {
        case "lose_weight": profile.currentWeight > profile.targetWeight ? -0.5 : 0
        case "gain_muscle": profile.currentWeight < profile.targetWeight ? 0.25 : 0
        default: 0
        }
    }

    static func targets(_ profile: Profile, now: Date) -> Targets {
        let bmr = bmr(profile)
        let tdee = bmr * (activityMultipliers[profile.activityLevel] ?? 1.2)
        let rate = weeklyRate(profile)
        let floor: Double = profile.sex == "male" ? 1500 : 1200
        var calories = tdee + rate * 7700 / 7
        if rate < 0 { calories = max(calories, min(floor, tdee)) }
        let proteinPerKg = profile.goal == "lose_weight" ? 2.0 : profile.goal == "gain_muscle" ? 2.2 : 1.6
        let water = (profile.currentWeight * 35 / 100).rounded() * 100
        var weeks: Int?
        var projected: Date?
        if rate != 0 {
            let value = Int((abs(profile.currentWeight - profile.targetWeight) / abs(rate)).rounded(.up))
            weeks = value
            projected = Calendar(identifier: .gregorian).startOfDay(for: now).addingTimeInterval(Double(value) * 7 * 86400)
        }
        return Targets(bmr: Int(bmr.rounded()), tdee: Int(tdee.rounded()), calorieTarget: Int(calories.rounded()),
                       proteinTarget: Int((profile.currentWeight * proteinPerKg).rounded()), waterTarget: Int(water),
                       weeklyRate: rate, estimatedWeeks: weeks, projectedDate: projected)
    }

    static func whyItWorks(_ profile: Profile, _ targets: Targets) -> WhyItWorks {
        let multiplier = activityMultipliers[profile.activityLevel] ?? 1.2
        let deficit = targets.tdee - targets.calorieTarget
        let calorieText: String = switch deficit {
        case 1...: "Eating \(targets.calorieTarget) kcal a day is \(deficit) kcal below the \(targets.tdee) kcal you burn, enough to lose about \(abs(targets.weeklyRate)) kg a week without losing muscle."
        case ..<0: "Eating \(targets.calorieTarget) kcal a day is \(-deficit) kcal above the \(targets.tdee) kcal you burn, a small surplus for lean gains."
        default: "Eating \(targets.calorieTarget) kcal a day matches the \(targets.tdee) kcal you burn, so your weight holds steady."
        }
        let timeline = targets.estimatedWeeks.map { " At this pace you reach \(Self.format(profile.targetWeight)) kg in about \($0) weeks." } ?? ""
        return WhyItWorks(
            calorieTarget: Explanation(
                title: "Calorie target", explanation: calorieText,
                science: "Your BMR of \(targets.bmr) kcal comes from the Mifflin–St Jeor equation (weight, height, age, sex); times \(multiplier) for your activity level gives a TDEE of \(targets.tdee) kcal."),
            proteinTarget: Explanation(
                title: "Protein target",
                explanation: "\(targets.proteinTarget) g of protein a day keeps you full and protects muscle.",
                science: "That is \(Self.format(Double(targets.proteinTarget) / profile.currentWeight)) g per kg of body weight, within the 1.6–2.2 g/kg the ISSN recommends for active people."),
            waterTarget: Explanation(
                title: "Hydration",
                explanation: "Drink about \(Self.format(Double(targets.waterTarget) / 1000)) litres of water a day.",
                science: "35 ml per kg of body weight (\(Self.format(profile.currentWeight)) kg), rounded to the nearest 100 ml."),
            weeklyRate: Explanation(
                title: "Weekly rate",
                explanation: targets.weeklyRate == 0 ? "Your plan keeps your weight where it is." : "\(targets.weeklyRate > 0 ? "+" : "")\(targets.weeklyRate) kg a week.\(timeline)",
                science: "One kilogram of body fat stores about 7,700 kcal; \(abs(targets.weeklyRate)) kg a week needs about \(Int(abs(targets.weeklyRate) * 1100)) kcal a day of \(targets.weeklyRate < 0 ? "deficit" : "surplus"). Losing 0.5–1 % of body weight a week preserves lean mass."))
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
