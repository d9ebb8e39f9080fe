@testable import BradOSServer
import Foundation
import Testing

@Suite("Reference server: meal plan generation and critiques")
struct MealPlanGeneratorTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)

    @Test("generation is deterministic from the seed, and a different seed changes it")
    func deterministic() {
        let a = MealPlanGenerator.generate(id: "x", seed: 42, now: now)
        let b = MealPlanGenerator.generate(id: "x", seed: 42, now: now)
        let c = MealPlanGenerator.generate(id: "x", seed: 43, now: now)
        #expect(a == b)
        #expect(a.days != c.days)
        #expect(a.days.count == 7)
        #expect(a.days.allSatisfy { $0.meals.map(\.mealType) == [.breakfast, .lunch, .dinner] })
    }

    @Test("\"no fish\" swaps every fish recipe and only those", arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func noFish(seed: UInt64) {
        var plan = MealPlanGenerator.generate(id: "x", seed: seed, now: now)
        let fishBefore = plan.days.flatMap(\.meals).filter { MealPlanGenerator.recipe(named: $0.recipeName)!.tags.contains("fish") }.count
        let original = plan
        MealPlanGenerator.critique(&plan, text: "No fish please", now: now, seed: seed)
        let meals = plan.days.flatMap(\.meals)
        #expect(meals.allSatisfy { !MealPlanGenerator.recipe(named: $0.recipeName)!.tags.contains("fish") })
        #expect(plan.critiques.last?.changes == fishBefore)
        for (old, new) in zip(original.days.flatMap(\.meals), meals) where !MealPlanGenerator.recipe(named: old.recipeName)!.tags.contains("fish") {
            #expect(old == new)
        }
        // A later critique never brings fish back.
        MealPlanGenerator.critique(&plan, text: "more protein", now: now, seed: seed)
        #expect(plan.days.flatMap(\.meals).allSatisfy { !MealPlanGenerator.recipe(named: $0.recipeName)!.tags.contains("fish") })
        #expect(plan.critiques.count == 2)
    }

    @Test("vegetarian removes meat and fish; unknown text is recorded with no change")
    func vegetarianAndUnknown() {
        var plan = MealPlanGenerator.generate(id: "x", seed: 9, now: now)
        MealPlanGenerator.critique(&plan, text: "make it vegetarian", now: now, seed: 9)
        #expect(plan.days.flatMap(\.meals).allSatisfy { MealPlanGenerator.recipe(named: $0.recipeName)!.tags.isDisjoint(with: ["meat", "pork", "fish"]) })
        let before = plan.days
        MealPlanGenerator.critique(&plan, text: "looks lovely", now: now, seed: 9)
        #expect(plan.days == before)
        #expect(plan.critiques.last?.changes == 0)
    }
}
