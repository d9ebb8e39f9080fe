import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

// Phases 2 and 3: what would change, and each domain's check of its staged data.
extension CacheImporter {
    /// Phase 2, describe: per chosen domain, add (nothing there yet), replace or merge, with
    /// the sizes on both sides.
    func describe(_ extracted: Extracted, options: Options) throws -> [DomainChange] {
        try extracted.manifest.domains.filter { extracted.chosen.contains($0.name) }.map { domain in
            let plugin = plugins.first { $0.name == domain.name }!
            let existing = try plugin.stats(in: target)
            // Empty means no file at all, hidden and lock files included.
            let occupied = plugin.folders(in: target).contains { !FileSystem.regularFiles(under: $0).isEmpty } || existing.files > 0
            return DomainChange(domain: domain.name, action: !occupied ? "add" : (options.mode ?? .replace).rawValue, files: domain.files,
                                bytes: domain.bytes, existingFiles: existing.files, existingBytes: existing.bytes)
        }
    }

    /// Phase 3, check: each domain checks its staged data before anything moves (databases
    /// are rebuilt, files it will load decode, its queued changes are kept); with `--merge`, a
    /// domain that merges by item (``MergesByItem``) rewrites its staged data to the merge.
    /// - Returns: `changes`, each merge with what it keeps and takes.
    func check(_ changes: [DomainChange], manifest: CacheArchiveManifest, options: Options, staging: Staging) throws -> [DomainChange] {
        try changes.map { change in
            var change = change
            let context = ImportContext(archiveProfile: manifest.profile, archiveCreatedAt: manifest.createdAt, target: target,
                                        mode: change.action == "add" || (options.dryRun && options.mode == nil) ? nil : (options.mode ?? .replace),
                                        discardPending: options.discardPending, now: Date(), archiveAccounts: manifest.accounts)
            let plugin = plugins.first { $0.name == change.domain }
            try plugin?.archive.prepareImport(cache: staging.cache(change.domain), data: staging.data(change.domain), context: context)
            if context.mode == .merge {
                if let merger = plugin as? any MergesByItem {
                    change.merged = try merger.mergeImport(cache: staging.cache(change.domain), data: staging.data(change.domain), into: target)
                } else {
                    change.merged = ["the archive's files overwrite this profile's at the same paths; its other files stay"]
                }
            }
            return change
        }
    }
}
