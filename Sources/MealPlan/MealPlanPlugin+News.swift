import BradOSCore
import BradOSStorage
import Foundation

/// `sync --watch --notify`: a plan newly finalized (the cached finalized plan changed to another).
extension MealPlanPlugin: Notifies {
    public var notifyDescription: String { "a meal plan newly finalized" }

    /// The mark is the cached plan's id (`none` when nothing is cached) and when the watch
    /// started; another plan cached since is news when it was finalized after that (the
    /// watch's first fetch of a plan finalized last week is not).
    public func news(_ env: AppEnvironment, since mark: String?) throws -> NewsReport {
        let stored = MealPlanCache(directory: env.profile.cacheDirectory(for: name), logger: env.logger).cached()
        let cached = stored?.session
        let parts = mark?.split(separator: " ", maxSplits: 1).map(String.init)
        let since = parts.flatMap { $0.count == 2 ? Double($0[1]) : nil } ?? env.now().timeIntervalSince1970
        let now = "\(cached?.id ?? "none") \(since)"
        guard let parts, let session = cached, parts[0] != session.id,
              (session.finalizedAt ?? session.createdAt).timeIntervalSince1970 >= since else { return NewsReport(news: [], mark: now) }
        let average = session.dailyAverage
        let detail = "\(session.days.count) days, about \(average.calories) kcal and \(average.protein) g protein a day · brados mealplan show"
        return NewsReport(news: [News(domain: name, thread: "plan", headline: "New meal plan finalized", headlineMany: "%d new meal plans finalized",
                                      detail: detail, ownChange: stored?.finalizedHere == true, category: "x-brados.mealplan",
                                      icon: "x-office-calendar")], mark: now)
    }

    /// The cached plan's file.
    public func newsStamp(_ env: AppEnvironment) -> String? {
        FileSystem.identity(of: MealPlanCache(directory: env.profile.cacheDirectory(for: name)).fileURL) ?? "none"
    }
}
