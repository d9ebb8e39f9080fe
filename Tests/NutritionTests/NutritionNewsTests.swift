import BradOSCore
import Foundation
@testable import Nutrition
import Testing
import TestSupport

@Suite("The nutrition plan in notifications")
struct NutritionNewsTests {
    @Test("targets that changed since the mark are news that say by how much (the values only in the detail); the same targets are not")
    func news() throws {
        let harness = try CommandHarness(plugins: [NutritionPlugin()]) { _, _ in .json("{}", status: 404) }
        let (env, _) = try harness.environment()
        let cache = NutritionCache(directory: NutritionPlugin.cacheDirectory(env.profile))
        let plugin = NutritionPlugin()
        let empty = try plugin.news(env, since: nil)
        try cache.save(CachedNutritionPlan(cachedAt: Date(), data: Fixtures.plan(targets: Fixtures.targets(calories: 2200, protein: 170))))
        let first = try plugin.news(env, since: empty.mark)
        #expect(first.news.isEmpty, "the first plan cached is not a change")
        #expect(try plugin.news(env, since: first.mark).news.isEmpty)
        try cache.save(CachedNutritionPlan(cachedAt: Date(), data: Fixtures.plan(targets: Fixtures.targets(calories: 2050, protein: 175))))
        let changed = try plugin.news(env, since: first.mark)
        let news = try #require(changed.news.first)
        #expect(news.headline == "Your nutrition plan changed" && !news.headline.contains("2050"))
        #expect(news.detail == "Calories 2200 → 2050 kcal (-150), protein 170 → 175 g (+5) · brados plan show", "\(news.detail ?? "")")
        #expect(try plugin.news(env, since: changed.mark).news.isEmpty)
        #expect(news.ownChange == false)
        // A plan computed after this profile's own change is the person's own news.
        try cache.save(CachedNutritionPlan(cachedAt: Date(), data: Fixtures.plan(targets: Fixtures.targets(calories: 2040, protein: 175)), changedHere: true))
        let own = try #require(try plugin.news(env, since: changed.mark).news.first)
        #expect(own.ownChange, "sync --watch --notify leaves it out unless notify.own-changes")
        #expect(plugin.newsStamp(env) != nil && plugin.newsStamp(env) != "none", "the cache file's identity")
    }
}
