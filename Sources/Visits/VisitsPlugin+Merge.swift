import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// `cache import --merge`: the cached list is a copy of the server's list, changed since by
/// adds and deletes, so the copy changed last stays whole (a visit added or deleted after the older one was saved is as the
/// newer says); an item-by-item union would bring deleted visits back.
extension VisitsPlugin: MergesByItem {
    public func mergeImport(cache: URL, data: URL, into target: ProfileScope) throws -> [String] {
        let staged = data.appendingPathComponent("visits.json")
        guard FileSystem.exists(staged), let theirs = VisitsCache(store: KeyValueStore(url: staged)).load() else {
            return ["keeps this profile's visits (the archive has none)"]
        }
        let mine = self.cache(in: target)
        guard let ours = mine.load() else { return ["takes the archive's \(Format.count(theirs.visits.count, "visit")) (this profile has none cached)"] }
        if ours.changedAt >= theirs.changedAt {
            // The profile's document in place of the staged one: the swap leaves it as it is.
            try ImportMerge.keepProfile(VisitsCache.url(in: target), over: staged)
            return ["keeps this profile's \(Format.count(ours.visits.count, "visit")) (changed \(ImportMerge.when(ours.changedAt))), not older than the archive's"]
        }
        return ["takes the archive's \(Format.count(theirs.visits.count, "visit")) (changed \(ImportMerge.when(theirs.changedAt))), newer than this profile's"]
    }
}
