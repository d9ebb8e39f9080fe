import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// `cache import --merge`: the cached list is a copy of the server's list, changed since by
/// adds and deletes, so the copy changed last stays whole (a visit added or deleted after the older one was saved is as the
/// newer says); an item-by-item union would bring deleted visits back.
extension VisitsPlugin: MergesByItem {
    public func mergeImport(cache: URL, data: URL, into target: ProfileScope) throws -> [String] {
        let stagedFile = data.appendingPathComponent(Self.exportFileName)
        guard let bytes = try AtomicFile.readIfPresent(stagedFile) else { return ["keeps this profile's visits (the archive has none)"] }
        let theirs = try JSONCoding.decode(ExportedVisits.self, from: bytes)
        guard let ours = self.cache(in: target).load() else { return ["takes the archive's \(Format.count(theirs.visits.count, "visit")) (this profile has none cached)"] }
        let theirsChanged = theirs.changedAt ?? theirs.savedAt
        if ours.changedAt >= theirsChanged {
            // No staged file: the import leaves the cached visits as they are.
            try FileSystem.remove(stagedFile)
            return ["keeps this profile's \(Format.count(ours.visits.count, "visit")) (changed \(ImportMerge.when(ours.changedAt))), not older than the archive's"]
        }
        return ["takes the archive's \(Format.count(theirs.visits.count, "visit")) (changed \(ImportMerge.when(theirsChanged))), newer than this profile's"]
    }
}
