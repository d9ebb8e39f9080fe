import BradOSTerminal
import Foundation

/// A meal plan session as the BradOS API returns it: a week of meals plus its critique history.
/// Finalized sessions never change, which is what makes them safe to cache forever.
public struct MealPlanSession: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var createdAt: Date
    public var finalizedAt: Date?
    public var isFinalized: Bool
    public var days: [MealPlanDay]
    public var critiques: [MealPlanCritique]

    public init(id: String, createdAt: Date, finalizedAt: Date?, isFinalized: Bool, days: [MealPlanDay], critiques: [MealPlanCritique]) {
        self.id = id
        self.createdAt = createdAt
        self.finalizedAt = finalizedAt
        self.isFinalized = isFinalized
        self.days = days
        self.critiques = critiques
    }

    /// The plan's day for a date (weeks start on Monday), in the given time zone.
    public func day(for date: Date, timeZone: TimeZone = .local) -> MealPlanDay? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let weekday = calendar.component(.weekday, from: date) // 1 = Sunday
        return days.first { $0.day == (weekday + 5) % 7 }
    }

    /// Mean calories and protein per day.
    public var dailyAverage: (calories: Int, protein: Int) {
        guard !days.isEmpty else { return (0, 0) }
        let calories = days.reduce(0) { $0 + $1.meals.reduce(0) { $0 + $1.calories } }
        let protein = days.reduce(0) { $0 + $1.meals.reduce(0) { $0 + $1.protein } }
        return (calories / days.count, protein / days.count)
    }
}

/// One day of a plan.
public struct MealPlanDay: Codable, Sendable, Equatable {
    /// 0 = Monday … 6 = Sunday.
    public var day: Int
    public var name: String
    public var meals: [Meal]

    public init(day: Int, name: String, meals: [Meal]) {
        self.day = day
        self.name = name
        self.meals = meals
    }
}

/// One meal: breakfast, lunch or dinner.
public struct Meal: Codable, Sendable, Equatable {
    public var mealType: String
    public var recipeName: String
    public var ingredients: [String]
    public var calories: Int
    public var protein: Int

    public init(mealType: String, recipeName: String, ingredients: [String], calories: Int, protein: Int) {
        self.mealType = mealType
        self.recipeName = recipeName
        self.ingredients = ingredients
        self.calories = calories
        self.protein = protein
    }
}

/// A critique sent during the critique loop and what it changed.
public struct MealPlanCritique: Codable, Sendable, Equatable {
    public var text: String
    public var createdAt: Date
    public var changes: Int?
    public var response: String?

    public init(text: String, createdAt: Date, changes: Int? = nil, response: String? = nil) {
        self.text = text
        self.createdAt = createdAt
        self.changes = changes
        self.response = response
    }
}
