import Foundation

/// The wire shape of a meal plan session (BradOS REST).
struct MealPlanSessionBody: Codable, Sendable, Equatable {
    struct Meal: Codable, Sendable, Equatable {
        var mealType: Recipe.MealType
        var recipeName: String
        var ingredients: [String]
        var calories: Int
        var protein: Int
    }
    struct Day: Codable, Sendable, Equatable {
        /// 0 = Monday … 6 = Sunday.
        var day: Int
        var name: String
        var meals: [Meal]
    }
    struct Critique: Codable, Sendable, Equatable {
        var text: String
        var createdAt: Date
        /// How many meals the critique changed.
        var changes: Int
        var response: String
    }
    var id: String
    var createdAt: Date
    var finalizedAt: Date?
    var isFinalized: Bool
    var days: [Day]
    var critiques: [Critique]
    /// Tags excluded by critiques so far (kept so later critiques never bring them back).
    var excludedTags: [String]
}

/// Deterministic meal plan generation and honest critique handling.
enum MealPlanGenerator {
    static let dayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// A week of meals chosen by a seeded generator: the same seed gives the same plan.
    static func generate(id: String, seed: UInt64, now: Date) -> MealPlanSessionBody {
        var random = SplitMix64(seed: seed)
        let days = (0..<7).map { index in
            MealPlanSessionBody.Day(day: index, name: dayNames[index], meals: Recipe.MealType.allCases.map { type in
                let options = RecipeCatalogue.all.filter { $0.mealType == type }
                return meal(options[Int(random.next() % UInt64(options.count))])
            })
        }
        return MealPlanSessionBody(id: id, createdAt: now, finalizedAt: nil, isFinalized: false, days: days, critiques: [], excludedTags: [])
    }

    static func meal(_ recipe: Recipe) -> MealPlanSessionBody.Meal {
        .init(mealType: recipe.mealType, recipeName: recipe.name, ingredients: recipe.ingredients, calories: recipe.calories, protein: recipe.protein)
    }

    static func recipe(named name: String) -> Recipe? { RecipeCatalogue.all.first { $0.name == name } }

    /// Applies a critique: "no fish", "without dairy", "vegetarian", "vegan", "more protein".
    /// Every meal that breaks an exclusion is swapped for an allowed recipe of the same meal type.
    static func critique(_ session: inout MealPlanSessionBody, text: String, now: Date, seed: UInt64) {
        let lowered = text.lowercased()
        let words = lowered.split(whereSeparator: { !$0.isLetter }).map(String.init)
        var excluded = Set(session.excludedTags)
        var mentioned: [String] = []
        for (index, word) in words.enumerated() where ["no", "without", "avoid", "skip", "hate", "less"].contains(word) {
            for next in words.dropFirst(index + 1).prefix(2) {
                if let tag = RecipeCatalogue.tagWords[next] { excluded.insert(tag); mentioned.append(tag) }
            }
        }
        if words.contains("vegetarian") { excluded.formUnion(["meat", "pork", "fish"]); mentioned.append("meat and fish") }
        if words.contains("vegan") { excluded.formUnion(["meat", "pork", "fish", "dairy", "eggs"]); mentioned.append("animal products") }
        if words.contains("pescatarian") { excluded.formUnion(["meat", "pork"]); mentioned.append("meat") }
        let moreProtein = lowered.contains("more protein") || lowered.contains("higher protein")

        var random = SplitMix64(seed: seed &+ UInt64(session.critiques.count + 1) &* 0x9E37_79B9)
        var changes = 0
        for dayIndex in session.days.indices {
            for mealIndex in session.days[dayIndex].meals.indices {
                let meal = session.days[dayIndex].meals[mealIndex]
                let current = recipe(named: meal.recipeName)
                let allowed = RecipeCatalogue.all.filter { $0.mealType == meal.mealType && $0.tags.isDisjoint(with: excluded) }
                if let current, !current.tags.isDisjoint(with: excluded), !allowed.isEmpty {
                    session.days[dayIndex].meals[mealIndex] = self.meal(allowed[Int(random.next() % UInt64(allowed.count))])
                    changes += 1
                }
            }
            if moreProtein, let lowest = session.days[dayIndex].meals.indices.min(by: {
                session.days[dayIndex].meals[$0].protein < session.days[dayIndex].meals[$1].protein
            }) {
                let meal = session.days[dayIndex].meals[lowest]
                let better = RecipeCatalogue.all
                    .filter { $0.mealType == meal.mealType && $0.tags.isDisjoint(with: excluded) && $0.protein >= meal.protein + 5 }
                if !better.isEmpty {
                    session.days[dayIndex].meals[lowest] = self.meal(better[Int(random.next() % UInt64(better.count))])
                    changes += 1
                }
            }
        }
        session.excludedTags = excluded.sorted()
        let response: String
        if changes > 0 {
            response = "Swapped \(changes) meal\(changes == 1 ? "" : "s")" + (mentioned.isEmpty ? "" : " to avoid \(Set(mentioned).sorted().joined(separator: ", "))") + (moreProtein ? " and raise protein" : "") + "."
        } else if mentioned.isEmpty && !moreProtein {
            response = "Noted; nothing in the plan matched a change I can make (try \"no fish\", \"vegetarian\" or \"more protein\")."
        } else {
            response = "The plan already satisfies that."
        }
        session.critiques.append(.init(text: text, createdAt: now, changes: changes, response: response))
    }
}

/// A small, fast, seedable generator (SplitMix64), so plans are reproducible.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
