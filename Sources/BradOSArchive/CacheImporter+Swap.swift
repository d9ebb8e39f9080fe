import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

// Phase 4: the journaled swap, all or nothing.
extension CacheImporter {
    /// Phase 4, swap: every move journaled before it is made; any failure rolls all of them
    /// back (and a kill is rolled back by ``CacheImportRecovery`` on the next run).
    /// - Parameter record: whose data the import brings (``ImportedData``), written inside the journal too.
    func swap(_ changes: [DomainChange], options: Options, staging: Staging, record: ImportedData.Entry) throws {
        var journal = SwapJournal(url: staging.dataRoot.appendingPathComponent("journal.json"))
        do {
            for change in changes {
                let pairs = [(staging.cache(change.domain), target.cacheDirectory(for: change.domain), staging.cacheRoot),
                             (staging.data(change.domain), target.dataDirectory(for: change.domain), staging.dataRoot)]
                for (staged, destination, root) in pairs {
                    let trash = root.appendingPathComponent(".replaced-\(change.domain)")
                    if options.mode == .merge {
                        try journal.merge(staged, into: destination, trash: trash)
                    } else {
                        try journal.replace(destination, with: staged, trash: trash)
                    }
                }
            }
            // Domains that keep data outside their folders (the key-value store) load it now,
            // inside the journal: the store's previous file is kept aside and put back by a
            // rollback, or by recovery after a kill.
            try journal.preserve(target.defaultsFile, backup: staging.dataRoot.appendingPathComponent("defaults-before.json"))
            try journal.preserve(ImportedData.url(target), backup: staging.dataRoot.appendingPathComponent("imported-before.json"))
            try ImportedData.record(record, in: target)
            for change in changes {
                try plugins.first { $0.name == change.domain }?.archive.didImport(into: target, replacing: options.mode != .merge)
            }
            // The renames and the store are on the disk before the journal goes.
            try FileSystem.syncFileSystem(holding: target.cacheDirectory.deletingLastPathComponent())
            try FileSystem.syncFileSystem(holding: target.dataDirectory.deletingLastPathComponent())
            try journal.commit()
            // What features derive (the search index) would read the imported domains again
            // anyway (their stores are new ones); telling them frees the old documents now.
            try? features.forget(domains: changes.map(\.domain), in: target)
        } catch {
            if !journal.rollBack() {
                // Something could not be put back: keep the staging folders (they hold the old data).
                staging.keep = true
                throw ArchiveError.io("the import failed (\(error.summaryText)) and could not be fully undone; the previous data is kept in \(staging.cacheRoot.path) and \(staging.dataRoot.path)")
            }
            throw error
        }
    }
}
