import BradOSCore
import BradOSStorage
import Foundation

/// `cache import --merge`: the latest finalized plan is one item, and the newer one stays
/// (finalized later; the same plan, saved later).
extension MealPlanPlugin: MergesByItem {
    public func mergeImport(cache: URL, data: URL, into target: ProfileScope) throws -> [String] {
        let staged = MealPlanCache(directory: cache)
        let mine = MealPlanCache(directory: target.cacheDirectory(for: name))
        guard let theirs = staged.cached() else { return ["keeps this profile's meal plan (the archive has none)"] }
        guard let ours = mine.cached() else { return ["takes the archive's meal plan \(theirs.session.id) (this profile has none)"] }
        func order(_ cached: CachedMealPlan) -> (Date, Date) { (cached.session.finalizedAt ?? cached.session.createdAt, cached.cachedAt) }
        if order(ours) >= order(theirs) {
            try ImportMerge.keepProfile(mine.fileURL, over: staged.fileURL)
            return ["keeps this profile's meal plan \(ours.session.id) (finalized \(ImportMerge.when(order(ours).0))), not older than the archive's \(theirs.session.id)"]
        }
        return ["takes the archive's meal plan \(theirs.session.id) (finalized \(ImportMerge.when(order(theirs).0))), newer than this profile's \(ours.session.id)"]
    }
}
