import BradOSCore
import BradOSStorage
import Foundation

extension CacheImporter {
    /// This import's private staging folders (under the profile's `.staging`), locked for the
    /// whole import so recovery never touches a live one, and removed at the end unless a
    /// failed swap left the previous data in them.
    final class Staging {
        let cacheRoot: URL
        let dataRoot: URL
        private let locks: [FileLock]
        /// Set when a swap could not be undone: the folders hold the previous data then.
        var keep = false

        init(cacheStaging: URL, dataStaging: URL) throws {
            let token = "import-\(UInt64.random(in: .min ... .max))"
            cacheRoot = cacheStaging.appendingPathComponent(token, isDirectory: true)
            dataRoot = dataStaging.appendingPathComponent(token, isDirectory: true)
            try FileSystem.createDirectory(cacheRoot)
            try FileSystem.createDirectory(dataRoot)
            var locks: [FileLock] = []
            do {
                for folder in [cacheRoot, dataRoot] {
                    let lock = try FileLock(url: folder.appendingPathComponent(".lock"))
                    try lock.lock()
                    locks.append(lock)
                }
            } catch {
                locks.forEach { $0.unlock() }
                try? FileSystem.remove(cacheRoot)
                try? FileSystem.remove(dataRoot)
                throw error
            }
            self.locks = locks
        }

        func cache(_ domain: String) -> URL { cacheRoot.appendingPathComponent(domain, isDirectory: true) }
        func data(_ domain: String) -> URL { dataRoot.appendingPathComponent(domain, isDirectory: true) }

        /// Flushes both sides' file systems (files and folders) to the disk.
        func sync() throws {
            try FileSystem.syncFileSystem(holding: cacheRoot)
            try FileSystem.syncFileSystem(holding: dataRoot)
        }

        func finish() {
            locks.forEach { $0.unlock() }
            if !keep {
                try? FileSystem.remove(cacheRoot)
                try? FileSystem.remove(dataRoot)
                // The `.staging` folders themselves go too once nothing else is in them.
                FileSystem.removeIfEmpty(cacheRoot.deletingLastPathComponent())
                FileSystem.removeIfEmpty(dataRoot.deletingLastPathComponent())
            }
        }
    }
}
