import BradOSCore
import Foundation

/// `sync --watch --notify`: a plan newly finalized (the cached finalized plan changed to another).
extension MealPlanPlugin: Notifies {
    public var notifyDescription: String { "a meal plan newly finalized" }

    /// The mark is the cached plan's id (`none` when nothing is cached); a different plan
    /// cached since is news. A plan cached where there was none is news too, unless the watch
    /// just started.
    public func news(_ env: AppEnvironment, since mark: String?) throws -> NewsReport {
        let cached = MealPlanCache(directory: env.profile.cacheDirectory(for: name), logger: env.logger).cached()?.session
        let now = cached?.id ?? "none"
        guard let mark, let session = cached, mark != now else { return NewsReport(news: [], mark: now) }
        let average = session.dailyAverage
        let detail = "\(session.days.count) days, about \(average.calories) kcal and \(average.protein) g protein a day · brados mealplan show"
        return NewsReport(news: [News(domain: name, thread: "plan", headline: "New meal plan finalized", headlineMany: "%d new meal plans finalized",
                                      detail: detail, category: "x-brados.mealplan", icon: "x-office-calendar")], mark: now)
    }
}
