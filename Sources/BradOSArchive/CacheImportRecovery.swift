import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// Finishes what a killed `cache import` or `cache export` left, in every profile's
/// `.staging` folders (and the shared ones older versions used):
///
/// - an import whose journal still exists and whose lock nobody holds is rolled back, so the
///   profile is exactly as it was before that import. The journal lives in the data side's
///   folder; the cache side's folder of the same import is kept for as long as the journal
///   is (after a failed rollback both hold the previous data, as the error message says);
/// - a killed export's folder (its database copies) is removed.
///
/// Every command starts with ``recoverIfMarked(_:)``: one `stat` of the ``StagingMarker``
/// when no import or export has run since the last clean finish.
public enum CacheImportRecovery {
    /// Recovers when the ``StagingMarker`` says an import or export may have left staging
    /// folders, and clears the marker once none is left; otherwise one `stat`, nothing else.
    /// - Returns: the import folders that were rolled back.
    @discardableResult
    public static func recoverIfMarked(_ paths: Paths) -> [URL] {
        let marker = StagingMarker(paths: paths)
        guard marker.isSet else { return [] }
        return marker.recover { scan(paths) }
    }

    /// Looks in every profile's staging folders, whatever the marker says.
    /// - Returns: the import folders that were rolled back.
    @discardableResult
    public static func recover(_ paths: Paths) -> [URL] { scan(paths).recovered }

    /// - Returns: the import folders rolled back, and how many staging folders are left (a
    ///   running import or export, or one whose rollback failed).
    static func scan(_ paths: Paths) -> (recovered: [URL], remaining: Int) {
        var pairs = [(cache: paths.cacheRoot.appendingPathComponent(".staging", isDirectory: true),
                      data: paths.dataRoot.appendingPathComponent(".staging", isDirectory: true))]
        var profiles = Set<String>()
        for root in [paths.cacheRoot, paths.dataRoot] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("users").path)) ?? [] { profiles.insert(name) }
        }
        for name in profiles.sorted() {
            guard let profile = ProfileName(rawValue: name) else { continue }
            let scope = paths.profile(profile)
            pairs.append((scope.cacheDirectory.appendingPathComponent(".staging", isDirectory: true),
                          scope.dataDirectory.appendingPathComponent(".staging", isDirectory: true)))
        }
        var recovered: [URL] = []
        var remaining = 0
        for pair in pairs {
            recovered += recover(cacheStaging: pair.cache, dataStaging: pair.data)
            for folder in [pair.cache, pair.data] {
                FileSystem.removeIfEmpty(folder)
                // What keeps the marker: an import or export folder still there (running, or
                // holding data after a failed rollback); anything else in `.staging` is not ours.
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                remaining += names.filter { $0.hasPrefix("import-") || $0.hasPrefix("export-") }.count
            }
        }
        return (recovered, remaining)
    }

    static func recover(cacheStaging: URL, dataStaging: URL) -> [URL] {
        let cacheNames = (try? FileManager.default.contentsOfDirectory(atPath: cacheStaging.path)) ?? []
        let dataNames = (try? FileManager.default.contentsOfDirectory(atPath: dataStaging.path)) ?? []
        guard !cacheNames.isEmpty || !dataNames.isEmpty else { return [] }
        var recovered: [URL] = []
        for name in Set(cacheNames + dataNames).sorted() {
            let folders = [dataStaging.appendingPathComponent(name, isDirectory: true), cacheStaging.appendingPathComponent(name, isDirectory: true)]
                .filter { FileManager.default.fileExists(atPath: $0.path) }
            if name.hasPrefix("export-") {
                for folder in folders {
                    guard let lock = try? FileLock(url: folder.appendingPathComponent(".lock")), lock.tryLock() else { continue }
                    try? FileSystem.remove(folder)
                    lock.unlock()
                }
                continue
            }
            guard name.hasPrefix("import-") else { continue }
            // Both sides' locks: an import in progress holds them for its whole run.
            let locks = folders.compactMap { try? FileLock(url: $0.appendingPathComponent(".lock")) }
            guard locks.count == folders.count else { continue }
            var held: [FileLock] = []
            for lock in locks where lock.tryLock() { held.append(lock) }
            defer { held.forEach { $0.unlock() } }
            guard held.count == locks.count else { continue }
            let journal = dataStaging.appendingPathComponent(name, isDirectory: true).appendingPathComponent("journal.json")
            if let data = try? AtomicFile.readIfPresent(journal) {
                guard let records = try? JSONCoding.decode([SwapJournal.Record].self, from: data), SwapJournal.undo(records) else {
                    continue // kept, both sides (they hold data) for the next try
                }
                try? FileSystem.remove(journal)
                recovered.append(dataStaging.appendingPathComponent(name, isDirectory: true))
            }
            // No journal (any more): a finished, undone or never-started import's leftovers.
            for folder in folders { try? FileSystem.remove(folder) }
        }
        return recovered
    }
}
