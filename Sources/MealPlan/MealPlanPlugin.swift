import ArgumentParser
import BradOSCore
import BradOSStorage
import Foundation

/// The meal plan domain: the latest finalized session, cached on disk and never re-fetched.
public struct MealPlanPlugin: DomainPlugin, Syncs, FeedsSearch, ShowsToday {
    public static let domainName = "mealplan"

    public init() {}
    public var name: String { Self.domainName }
    public var summary: String { "The latest finalized meal plan, cached on disk and never re-fetched." }
    public var command: any ParsableCommand.Type { MealPlanCommand.self }

    /// A finalized plan is kept until it is replaced: it is never stale and never re-fetched
    /// (a new plan invalidates it, finalizing writes it, `refresh` forces a fetch).
    public static let cachePolicy = CachePolicy(freshFor: nil, revalidation: .never)

    /// `brados sync --mealplan`.
    public static let refreshFlag = SyncFlag(name: "mealplan", help: "Refresh the finalized meal plan too (it is never re-fetched otherwise).")
    public var syncFlags: [SyncFlag] { [Self.refreshFlag] }
    public var syncDescription: String { "left alone (a finalized plan is never re-fetched) unless --mealplan; --watch looks for a newly finalized one" }

    /// The finalized plan is never re-fetched, unless asked (`brados sync --mealplan`);
    /// `sync --watch` asks which plan is the latest on each interval and caches one newly
    /// finalized (the cached one is kept as it is when it is still the latest).
    public func sync(_ env: AppEnvironment, options: SyncOptions) async throws -> String? {
        let repository = MealPlanRepository.live(env)
        if options.isSet(Self.refreshFlag) { return "meal plan \(try await repository.refresh().session.id)" }
        guard options.watching else { return nil }
        do {
            let latest = try await repository.fetch()
            return latest.session.isFinalized ? "meal plan \(latest.session.id)" : "meal plan \(latest.session.id) (not finalized yet)"
        } catch MealPlanError.noPlanYet {
            return nil
        }
    }

    public var searchDescription: String { "the cached plan's recipe names, meal types and ingredients, and its critiques" }

    /// Every meal of the cached finalized plan, and each critique with what it changed, sent
    /// again whenever the file is rewritten.
    public func searchDocuments(in profile: ProfileScope, into feed: SearchFeed) throws {
        let cache = MealPlanCache(directory: profile.cacheDirectory(for: name))
        guard let stamp = SearchStamp.file(cache.fileURL) else { return }
        try feed.replace(stamp: stamp) {
            guard let session = cache.cached()?.session else { return [] }
            let meals = session.days.flatMap { day in
                day.meals.enumerated().map { index, meal in
                    SearchDocument(key: "meal:\(day.day):\(index)", title: meal.recipeName,
                                   body: "\(meal.mealType), \(day.name): " + meal.ingredients.joined(separator: ", "),
                                   date: session.finalizedAt ?? session.createdAt, command: "brados mealplan show")
                }
            }
            let critiques = session.critiques.enumerated().map { index, critique in
                SearchDocument(key: "critique:\(index)", title: "Critique: \(critique.text)", body: critique.response ?? "",
                               date: critique.createdAt, command: "brados mealplan show")
            }
            return meals + critiques
        }
    }

    /// Today's meals from the cached finalized plan.
    public func todaySection(_ context: TodayContext) async throws -> TodaySection? {
        guard let read = await context.read(MealPlanRepository.live(context.env).latestPlan) else {
            return .nothingCached("Meals", fill: "brados mealplan show")
        }
        let session = read.value
        guard let day = session.day(for: context.now, timeZone: context.calendar.timeZone) else {
            return TodaySection(title: "Meals", lines: [context.output.styled("the plan \(session.id) has no meals for today", .dim)],
                                json: ["sessionId": .string(session.id), "meals": .array([])])
        }
        let width = day.meals.map(\.mealType.count).max() ?? 0
        var lines = day.meals.map { meal in
            meal.mealType + String(repeating: " ", count: width - meal.mealType.count) + "  " + meal.recipeName + "  "
                + context.output.styled("\(meal.calories) kcal, \(meal.protein) g protein", .dim)
        }
        let calories = day.meals.reduce(0) { $0 + $1.calories }, protein = day.meals.reduce(0) { $0 + $1.protein }
        lines.append("Total \(calories) kcal, \(protein) g protein · " + context.output.styled("brados mealplan today", .cyan))
        let meals: [JSONValue] = day.meals.map { meal in
            .object(["mealType": .string(meal.mealType), "recipeName": .string(meal.recipeName),
                     "calories": .number(Double(meal.calories)), "protein": .number(Double(meal.protein))])
        }
        return TodaySection(title: "Meals · \(day.name)", lines: lines, json: [
            "sessionId": .string(session.id), "day": .string(day.name), "meals": .array(meals),
            "calories": .number(Double(calories)), "protein": .number(Double(protein)),
        ])
    }
}
