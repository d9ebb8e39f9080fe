import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// `cache import --merge`: the current plan is one item (the one received later stays); the
/// weight log and the kept plans are histories, so both sides' entries are kept. The queue of
/// unsent changes is merged by ``NutritionPlugin/prepareImport(cache:data:context:)``.
extension NutritionPlugin: MergesByItem {
    public func mergeImport(cache: URL, data: URL, into target: ProfileScope) throws -> [String] {
        var said: [String] = []
        let staged = NutritionCache(directory: cache)
        let mine = NutritionCache(directory: Self.cacheDirectory(target))
        switch (mine.storedOnDisk(), staged.storedOnDisk()) {
        case let (ours?, theirs?):
            let oursNewer = ours.cachedAt >= theirs.cachedAt
            var kept = oursNewer ? ours : theirs
            kept.weights = Self.union(newer: kept.weights, older: oursNewer ? theirs.weights : ours.weights)
            try staged.save(kept)
            said.append(oursNewer
                ? "keeps this profile's plan (received \(ImportMerge.when(ours.cachedAt))), not older than the archive's"
                : "takes the archive's plan (received \(ImportMerge.when(theirs.cachedAt))), newer than this profile's")
            let weights = kept.weights?.weights.count ?? 0
            if weights > 0 { said.append("keeps \(Format.count(weights, "logged weight")) from both (one a day, the newer copy's where both have that day)") }
        case (_?, nil):
            try ImportMerge.keepProfile(mine.fileURL, over: staged.fileURL)
            said.append("keeps this profile's plan (the archive has none)")
        case (nil, _?):
            said.append("takes the archive's plan (this profile has none)")
        case (nil, nil):
            break
        }
        let before = mine.kept.all().count
        let added = try mine.kept.merge(from: staged.kept)
        if before + added > 0 {
            said.append(added == 0 ? "keeps this profile's \(Format.count(before, "kept plan")) (the archive's are among them)"
                : "keeps this profile's \(Format.count(before, "kept plan")) and adds \(Format.count(added, "kept plan")) of the archive's")
        }
        return said
    }

    /// Both weight logs, one entry a day (the newer copy's where both have it), oldest first;
    /// the target weight of the newer copy.
    static func union(newer: WeightHistory?, older: WeightHistory?) -> WeightHistory? {
        guard let newer else { return older }
        guard let older else { return newer }
        var byDay: [String: WeightHistory.Entry] = [:]
        for entry in older.weights { byDay[entry.date] = entry }
        for entry in newer.weights { byDay[entry.date] = entry }
        return WeightHistory(targetWeight: newer.targetWeight ?? older.targetWeight, weights: byDay.values.sorted { $0.date < $1.date })
    }
}
