import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// `sync --watch --notify`: the nutrition plan's targets changed, and by how much.
extension NutritionPlugin: Notifies {
    public var notifyDescription: String { "a change of the nutrition plan's targets (by how much)" }

    /// The mark is the cached plan's targets (as JSON); other targets cached since are news.
    public func news(_ env: AppEnvironment, since mark: String?) throws -> NewsReport {
        let cache = try NutritionRepository.live(env).cache
        guard let stored = cache.storedOnDisk() else { return NewsReport(news: [], mark: mark ?? "none") }
        let targets = stored.data.targets
        let now = String(decoding: try JSONCoding.encode(targets), as: UTF8.self)
        guard let mark, mark != now, let before = try? JSONCoding.decode(Targets.self, from: Data(mark.utf8)) else {
            return NewsReport(news: [], mark: now)
        }
        func moved(_ name: String, _ from: Int, _ to: Int, _ unit: String) -> String? {
            from == to ? nil : "\(name) \(from) → \(to) \(unit) (\(Format.signed(to - from)))"
        }
        let forms = env.output.forms
        // Water in the person's unit: the change is the one between the two figures shown.
        let water = moved("water", forms.volumeValue(before.waterTarget), forms.volumeValue(targets.waterTarget), forms.units.volumeUnit)
        let changes = [moved("Calories", before.calorieTarget, targets.calorieTarget, "kcal"),
                       moved("protein", before.proteinTarget, targets.proteinTarget, "g"), water].compactMap { $0 }
        let detail = (changes.isEmpty ? "New targets: \(targets.calorieTarget) kcal, \(targets.proteinTarget) g protein" : changes.joined(separator: ", "))
            + " · brados plan show"
        return NewsReport(news: [News(domain: name, thread: "plan", headline: "Your nutrition plan changed", headlineMany: "Your nutrition plan changed %d times",
                                      detail: detail, ownChange: stored.changedHere == true, category: "x-brados.plan",
                                      icon: "dialog-information")], mark: now)
    }

    /// The cached plan's file.
    public func newsStamp(_ env: AppEnvironment) -> String? {
        FileSystem.identity(of: NutritionCache(directory: env.profile.cacheDirectory(for: name)).fileURL) ?? "none"
    }
}
