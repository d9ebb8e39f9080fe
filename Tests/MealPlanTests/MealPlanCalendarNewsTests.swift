import BradOSCore
import BradOSTerminal
import Foundation
@testable import MealPlan
import Testing
import TestSupport

@Suite("The meal plan in the calendar and in notifications")
struct MealPlanCalendarNewsTests {
    let harness: CommandHarness

    init() throws {
        harness = try CommandHarness(plugins: [MealPlanPlugin()]) { _, _ in .json(#"{"error":{"message":"none"}}"#, status: 404) }
    }

    var local: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        calendar.firstWeekday = 2
        return calendar
    }

    @Test("a week holds 21 meals at their times, each UID its day and type; nothing before the week the plan was finalized in")
    func calendarWeek() throws {
        let (env, _) = try harness.environment()
        try MealPlanCache(directory: env.profile.cacheDirectory(for: "mealplan")).replace(with: makeSession("mp1", finalized: true))
        let finalized = Date(timeIntervalSince1970: 1_790_000_600)
        let monday = local.dateInterval(of: .weekOfYear, for: finalized)!.start
        let nextMonday = local.date(byAdding: .day, value: 14, to: monday)!
        let week = try MealPlanPlugin().calendarEvents(env, during: nextMonday..<local.date(byAdding: .day, value: 7, to: nextMonday)!, in: local)
        #expect(week.events.count == 21 && week.savedAt != nil)
        let breakfast = try #require(week.events.first)
        #expect(local.dateComponents([.hour, .minute], from: breakfast.start) == DateComponents(hour: 8, minute: 0))
        #expect(breakfast.end.timeIntervalSince(breakfast.start) == 1800)
        #expect(breakfast.timeOfDay, "a meal is an hour of the day, written floating")
        #expect(breakfast.uid == "mealplan-\(Format.day(nextMonday))-breakfast@brados")
        #expect(breakfast.summary == "Breakfast: Oats" && breakfast.description?.contains("400 kcal, 14 g protein") == true)
        #expect(Set(week.events.map(\.uid)).count == 21)
        let before = try MealPlanPlugin().calendarEvents(env, during: monday.addingTimeInterval(-7 * 86_400)..<monday, in: local)
        #expect(before.events.isEmpty, "the plan does not reach back before its week")
    }

    @Test("nothing cached: no events, and the command that fills the cache")
    func nothingCached() throws {
        let (env, _) = try harness.environment()
        let contribution = try MealPlanPlugin().calendarEvents(env, during: Date()..<Date().addingTimeInterval(86_400), in: local)
        #expect(contribution.events.isEmpty && contribution.savedAt == nil && contribution.fill == "brados mealplan show")
    }

    @Test("a plan finalized after the watch started is news; the first fetch of an older plan, or the same plan, is not")
    func news() throws {
        let cache = { (env: AppEnvironment) in MealPlanCache(directory: env.profile.cacheDirectory(for: "mealplan")) }
        let started = Date(timeIntervalSince1970: 1_790_000_000)
        let (env, _) = try harness.environment(now: { started })
        let plugin = MealPlanPlugin()
        let baseline = try plugin.news(env, since: nil)
        #expect(baseline.news.isEmpty)
        try cache(env).replace(with: makeSession("old", finalized: true))  // finalized at 1_790_000_600, after the start: news
        let first = try plugin.news(env, since: baseline.mark)
        #expect(first.news.count == 1 && first.news[0].headline == "New meal plan finalized")
        #expect(first.news[0].detail?.hasPrefix("7 days, about 1620 kcal and 74 g protein a day") == true, "\(first.news)")
        #expect(try plugin.news(env, since: first.mark).news.isEmpty, "the same plan again is not news")
        let (later, _) = try harness.environment(now: { started.addingTimeInterval(3600) })
        let restarted = try plugin.news(later, since: nil)
        try cache(env).replace(with: makeSession("older-still", finalized: true))
        #expect(try plugin.news(later, since: restarted.mark).news.isEmpty, "a plan finalized before this watch started is not news")
        #expect(first.news[0].ownChange == false)
        // One this profile finalized is its own.
        let mark = try plugin.news(env, since: first.mark).mark
        try cache(env).invalidate()
        _ = try cache(env).store(makeSession("mine", finalized: true), finalizedHere: true)
        #expect(try plugin.news(env, since: mark).news.first?.ownChange == true)
    }
}
