import AgeEncryption
import CArchiveLoader
import Crypto
import Foundation
import GRDB
import GRDBSQLite
#if canImport(Glibc)
import Glibc
#endif

/// `brados cache export`: one archive of a profile's caches, through the plugin contract.
///
/// A `manifest.json` comes first (format version, brados version, profile, the remote account
/// per service, each domain with its data version, and every file's path, size, SHA-256 and
/// mode), then the files. SQLite databases are copied through SQLite's online backup, so the
/// copy is consistent even while another brados writes. Credentials are never part of any
/// domain's files. Memory use does not grow with the cache: files stream through a 1 MiB buffer.
///
/// The manifest needs every checksum before the first file is written, so files are hashed
/// first, then streamed and hashed again; a file that changed in between makes the export
/// fail (``ArchiveError/changedDuringExport(path:)``) rather than lie.
///
/// Cancelling the task that runs an export (Ctrl-C, SIGTERM, SIGHUP) stops it between files
/// and between 1 MiB chunks with `CancellationError`; what it had written is discarded.
public struct CacheExporter: Sendable {
    public struct Options: Sendable {
        public var compression: ArchiveCompression
        public var level: Int?
        /// Only these domains (all when `nil`).
        public var domains: [String]?
        /// Encrypt the archive with age (`nil`: it is written in the clear).
        public var encryption: ArchiveEncryption?

        public init(compression: ArchiveCompression = .zstd, level: Int? = nil, domains: [String]? = nil, encryption: ArchiveEncryption? = nil) {
            self.compression = compression
            self.level = level
            self.domains = domains
            self.encryption = encryption
        }
    }

    public struct Report: Codable, Sendable {
        public var profile: String
        public var compression: String
        public var domains: [CacheArchiveManifest.Domain]
        public var files: Int
        public var bytes: Int64
    }

    public let profile: ProfileScope
    public let plugins: [any DomainPlugin]
    /// The remote account id per service, recorded in the manifest.
    public let accounts: [String: String]
    /// Where SQLite backups are staged (removed afterwards).
    public let stagingRoot: URL
    let now: @Sendable () -> Date

    public init(profile: ProfileScope, plugins: [any DomainPlugin], accounts: [String: String], stagingRoot: URL,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.profile = profile
        self.plugins = plugins
        self.accounts = accounts
        self.stagingRoot = stagingRoot
        self.now = now
    }

    struct Item {
        var file: ExportFile
        var domain: String
        var source: URL
        var size: Int64
        var modified: timespec
        var changed: timespec
        var device: UInt64
        var inode: UInt64
        var sha256: String
        var mode: mode_t
        /// Hashed again while it is written: changed too recently before it was hashed to
        /// tell a later write from its status alone.
        var rehash: Bool
        /// A database copy made for the export, open and already unlinked: no plaintext copy
        /// of it stays on disk even if the export is killed from here on.
        var unlinkedCopy: Int32?
    }

    /// Writes the archive to the file `destination`, named only once whole: a failed or killed
    /// export leaves no half archive and no temporary file, and an existing file is replaced
    /// only with `overwrite` (also when the name is taken while the archive is written).
    /// - Throws: ``ArchiveError/destinationExists(path:)``, and what ``export(to:options:progress:)`` throws.
    public func export(toFile destination: URL, overwrite: Bool, options: Options,
                       progress: (Int64, Int64) -> Void = { _, _ in }) throws -> Report {
        if FileSystem.exists(destination), !overwrite { throw ArchiveError.destinationExists(path: destination.path) }
        let file = try UnnamedFile(destination: destination)
        do {
            let report = try export(to: file.descriptor, options: options, progress: progress)
            try file.publish(overwrite: overwrite)
            return report
        } catch {
            file.discard()
            if case StorageError.io(_, _, EEXIST) = error, !overwrite { throw ArchiveError.destinationExists(path: destination.path) }
            if case ArchiveError.destinationFull(nil) = error { throw ArchiveError.destinationFull(path: destination.path) }
            throw error
        }
    }

    /// Writes the archive to `fd`.
    /// - Parameter progress: bytes written and the total, as it goes.
    /// - Throws: ``ArchiveError``, ``StorageError``, ``ConfigError`` for an unknown domain.
    public func export(to fd: Int32, options: Options, progress: (Int64, Int64) -> Void = { _, _ in }) throws -> Report {
        let selected = try selectedPlugins(options.domains)
        let staging = stagingRoot.appendingPathComponent("export-\(UInt64.random(in: .min ... .max))", isDirectory: true)
        try FileSystem.createDirectory(staging)
        // Held while the export runs: a folder whose lock nobody holds is a killed export's,
        // and the next brados command removes it (``CacheImportRecovery``), database copies and all.
        let lock = try FileLock(url: staging.appendingPathComponent(".lock"))
        try lock.lock()
        defer {
            try? FileSystem.remove(staging)
            lock.unlock()
            FileSystem.removeIfEmpty(stagingRoot)
        }

        var items: [Item] = []
        defer { for item in items { if let copy = item.unlinkedCopy { close(copy) } } }
        // Listed (and databases copied) in order, then hashed on every core: hashing is most
        // of an export's work, and the manifest needs every checksum before the first file.
        var listed: [(file: ExportFile, domain: String, source: URL, copy: Int32?)] = []
        defer { for entry in listed { if let copy = entry.copy { close(copy) } } }
        for plugin in selected {
            let made = staging.appendingPathComponent("made-\(plugin.name)", isDirectory: true)
            try FileSystem.createDirectory(made)
            for (index, file) in try plugin.exportFiles(in: profile, staging: made).enumerated() {
                try Task.checkCancellation()
                // Only names every import accepts (files brados did not write are left out).
                guard (try? CacheArchiveManifest.checkPath(file.archivePath)) != nil else { continue }
                var source = file.url
                var copy: Int32?
                if let contents = file.contents {
                    copy = try Self.memoryFile(contents, name: file.url.lastPathComponent)
                } else if file.kind == .sqlite, options.encryption != nil {
                    // Encrypted: the copy is made in memory, so no unencrypted byte of it
                    // touches a disk, not even for a moment.
                    guard let fd = try Self.backupInMemory(file.url) else { continue }
                    copy = fd
                } else if file.kind == .sqlite {
                    source = staging.appendingPathComponent("\(plugin.name)-\(index).sqlite")
                    guard try Self.backup(file.url, to: source) else { continue }
                    // Open and unlinked at once: no plaintext copy of it stays on disk even if
                    // the export is killed from here on.
                    let fd = open(source.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
                    guard fd >= 0 else { throw StorageError.io(operation: "open", path: source.path, errno: errno) }
                    unlink(source.path)
                    copy = fd
                }
                listed.append((file, plugin.name, source, copy))
            }
        }
        let known = ExportHashCache.load(profile)
        let hashed = try Self.hashAll(listed.map { ($0.file, $0.domain, $0.source, $0.copy) }, known: known, started: now())
        var domains: [CacheArchiveManifest.Domain] = []
        for plugin in selected {
            var count = 0
            var bytes: Int64 = 0
            for (index, entry) in listed.enumerated() where entry.domain == plugin.name {
                // A file gone since it was listed (an evicted artwork) is simply not exported.
                guard var item = hashed[index] else { continue }
                item.unlinkedCopy = entry.copy
                listed[index].copy = nil
                items.append(item)
                count += 1
                bytes += item.size
            }
            domains.append(.init(name: plugin.name, dataVersion: plugin.dataVersion, files: count, bytes: bytes))
        }
        let manifest = CacheArchiveManifest(
            format: CacheArchiveManifest.formatName, formatVersion: CacheArchiveManifest.currentFormatVersion,
            bradosVersion: BradOSVersion.current, profile: profile.name.rawValue, accounts: accounts, createdAt: now(),
            compression: options.compression.rawValue, domains: domains,
            files: items.map { .init(path: $0.file.archivePath, domain: $0.domain, size: $0.size, sha256: $0.sha256,
                                     mode: Int($0.mode & 0o777), kind: $0.file.kind.rawValue) })
        let total = manifest.totalBytes
        // Encrypted: compress → encrypt → write in one pass; no plaintext byte reaches the disk.
        let encryptor = try options.encryption.map { try AgeEncryptor(recipients: $0.recipients, output: FileDescriptorSink(fd), armor: $0.armor) }
        let writer = try encryptor.map { try ArchiveWriter(sink: $0, compression: options.compression, level: options.level) }
            ?? ArchiveWriter(fd: fd, compression: options.compression, level: options.level)
        let created = now()
        let manifestData: Data
        do { manifestData = try JSONCoding.encode(manifest) } catch {
            throw ArchiveError.invalidManifest("it could not be encoded: \(error)")
        }
        try writer.addFile(path: CacheArchiveManifest.fileName, data: manifestData, modified: created)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var done: Int64 = 0
        for item in items {
            try Task.checkCancellation()
            let fd = item.unlinkedCopy.map { dup($0) } ?? open(item.source.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { throw ArchiveError.changedDuringExport(path: item.file.archivePath) }
            defer { close(fd) }
            if item.unlinkedCopy != nil { lseek(fd, 0, SEEK_SET) }
            var info = stat()
            guard fstat(fd, &info) == 0, Self.sameFile(info, as: item) else { throw ArchiveError.changedDuringExport(path: item.file.archivePath) }
            try writer.beginFile(path: item.file.archivePath, size: item.size, mode: item.mode,
                                 modified: Date(timeIntervalSince1970: TimeInterval(item.modified.tv_sec)))
            var remaining = item.size
            var hasher = SHA256()
            while remaining > 0 {
                try Task.checkCancellation()
                let count = read(fd, buffer.baseAddress, min(buffer.count, Int(remaining)))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw ArchiveError.changedDuringExport(path: item.file.archivePath) }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                if item.rehash { hasher.update(bufferPointer: chunk) }
                try writer.write(chunk)
                remaining -= Int64(count)
                done += Int64(count)
                progress(done, total)
            }
            // Rewritten in place since it was hashed? Then the manifest would lie. A file whose
            // status did not change at all (inode, size, modification and change times), and
            // was last changed well before it was hashed, cannot have been written since (any
            // write moves its change time, which no program can set back); any other is hashed
            // again as it is written (git's "racy" rule).
            guard fstat(fd, &info) == 0, Self.sameFile(info, as: item),
                  !item.rehash || Hex.encode(hasher.finalize()) == item.sha256
            else { throw ArchiveError.changedDuringExport(path: item.file.archivePath) }
        }
        try Task.checkCancellation()
        try writer.finish()
        try encryptor?.finish()
        // What the next export need not hash again: files read from the profile's folders
        // (not memory copies) that had settled before they were hashed.
        let exported = Set(items.map(\.source.path))
        var settled = ExportHashCache(entries: known.entries.filter { !exported.contains($0.key) && FileManager.default.fileExists(atPath: $0.key) })
        for item in items where item.unlinkedCopy == nil && !item.rehash {
            settled.entries[item.source.path] = .init(device: item.device, inode: item.inode, size: item.size,
                                                      modified: [item.modified.tv_sec, item.modified.tv_nsec],
                                                      changed: [item.changed.tv_sec, item.changed.tv_nsec], sha256: item.sha256)
        }
        if settled.entries != known.entries { settled.save(profile) }
        return Report(profile: profile.name.rawValue, compression: options.compression.rawValue, domains: domains,
                      files: items.count, bytes: total)
    }

    func selectedPlugins(_ names: [String]?) throws -> [any DomainPlugin] {
        guard let names, !names.isEmpty else { return plugins }
        return try names.map { name in
            guard let plugin = plugins.first(where: { $0.name == name }) else {
                throw ConfigError.unknownDomain(name, known: plugins.map(\.name))
            }
            return plugin
        }
    }

    /// Copies a database through SQLite's online backup; `false` when it no longer exists.
    static func backup(_ source: URL, to destination: URL) throws -> Bool {
        guard FileSystem.exists(source) else { return false }
        do {
            let from = try GRDBReadOnly.open(source, busyTimeout: 30)
            close(open(destination.path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600))
            let to = try DatabaseQueue(path: destination.path)
            try from.backup(to: to)
            try from.close()
            try to.close()
            return true
        } catch let error as DatabaseError {
            throw StorageError.database(error, path: source.path, writing: destination.path)
        }
    }

    /// Copies a database through SQLite's online backup into an anonymous in-memory file
    /// (memfd); `nil` when it no longer exists.
    static func backupInMemory(_ source: URL) throws -> Int32? {
        guard FileSystem.exists(source) else { return nil }
        do {
            let from = try GRDBReadOnly.open(source, busyTimeout: 30)
            let memory = try DatabaseQueue()
            try from.backup(to: memory)
            try from.close()
            return try memory.inDatabase { db in
                var size: sqlite3_int64 = 0
                guard let image = sqlite3_serialize(db.sqliteConnection, "main", &size, 0) else {
                    throw StorageError.io(operation: "serialize", path: source.path, errno: ENOMEM)
                }
                defer { sqlite3_free(image) }
                return try memoryFile(UnsafeRawBufferPointer(start: image, count: Int(size)), name: source.lastPathComponent)
            }
        } catch let error as DatabaseError {
            throw StorageError.database(error, path: source.path, writing: nil)
        }
    }

    /// An anonymous in-memory file (memfd) holding `bytes`.
    static func memoryFile(_ bytes: some ContiguousBytes, name: String) throws -> Int32 {
        let fd = brados_memfd("brados-export-\(name)")
        guard fd >= 0 else { throw StorageError.io(operation: "memfd_create", path: name, errno: errno) }
        // A memfd is made 0777: the mode it is archived with must be a cache file's.
        fchmod(fd, 0o600)
        do {
            try bytes.withUnsafeBytes { try FileDescriptorSink(fd).write($0) }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Whether `info` (a file's status now) is the status it had when it was hashed.
    static func sameFile(_ info: stat, as item: Item) -> Bool {
        Int64(info.st_size) == item.size && UInt64(info.st_dev) == item.device && UInt64(info.st_ino) == item.inode
            && info.st_mtim.tv_sec == item.modified.tv_sec && info.st_mtim.tv_nsec == item.modified.tv_nsec
            && info.st_ctim.tv_sec == item.changed.tv_sec && info.st_ctim.tv_nsec == item.changed.tv_nsec
    }

    /// Hashes every file, on up to as many threads as there are cores (at most 4), in the
    /// caller's order; `nil` for a file that vanished. The calling task's cancellation stops
    /// every thread at its next 1 MiB.
    static func hashAll(_ files: [(file: ExportFile, domain: String, source: URL, copy: Int32?)], known: ExportHashCache = ExportHashCache(),
                        started: Date = Date()) throws -> [Item?] {
        let workers = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount, files.count))
        let state = HashState(count: files.count)
        @Sendable func work(_ cancelled: @escaping () -> Bool) {
            while let index = state.next() {
                let entry = files[index]
                do {
                    let item = try hash(entry.file, domain: entry.domain, source: entry.source, descriptor: entry.copy,
                                        hashingStarted: started, known: known, cancelled: { cancelled() || state.stopped })
                    state.finish(index, item)
                } catch {
                    state.fail(error)
                }
            }
        }
        let group = DispatchGroup()
        for _ in 1..<workers { DispatchQueue.global().async(group: group) { work { false } } }
        // This thread is a worker too, and the one that sees the task's cancellation.
        work {
            if Task.isCancelled { state.fail(CancellationError()) }
            return Task.isCancelled
        }
        // Done with its share, it still watches for cancellation while the others finish.
        while group.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if Task.isCancelled { state.fail(CancellationError()) }
        }
        return try state.results()
    }

    /// The shared state of ``hashAll(_:)``'s threads.
    final class HashState: @unchecked Sendable {
        private let lock = NSLock()
        private var nextIndex = 0
        private var items: [Item?]
        private var error: (any Error)?

        init(count: Int) { items = Array(repeating: nil, count: count) }

        var stopped: Bool { lock.withLock { error != nil } }

        func next() -> Int? {
            lock.withLock {
                guard error == nil, nextIndex < items.count else { return nil }
                defer { nextIndex += 1 }
                return nextIndex
            }
        }

        func finish(_ index: Int, _ item: Item?) { lock.withLock { items[index] = item } }
        func fail(_ error: any Error) { lock.withLock { if self.error == nil { self.error = error } } }

        func results() throws -> [Item?] {
            try lock.withLock {
                if let error { throw error }
                return items
            }
        }
    }

    /// Size, times, identity, SHA-256 and mode of a file (read from `descriptor` when given);
    /// `nil` when it vanished.
    static func hash(_ file: ExportFile, domain: String, source: URL, descriptor: Int32? = nil, hashingStarted: Date = Date(),
                     known: ExportHashCache = ExportHashCache(), cancelled: () -> Bool = { Task.isCancelled }) throws -> Item? {
        let fd = descriptor.map { dup($0) } ?? open(source.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw StorageError.io(operation: "open", path: source.path, errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StorageError.io(operation: "stat", path: source.path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        func item(sha256: String, rehash: Bool) -> Item {
            Item(file: file, domain: domain, source: source, size: Int64(info.st_size), modified: info.st_mtim, changed: info.st_ctim,
                 device: UInt64(info.st_dev), inode: UInt64(info.st_ino), sha256: sha256, mode: info.st_mode & 0o777, rehash: rehash)
        }
        // Hashed by an earlier export and not changed since: its status says so.
        if descriptor == nil, let sha256 = known.sha256(source.path, info) { return item(sha256: sha256, rehash: false) }
        var hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var size: Int64 = 0
        var offset: off_t = 0
        while true {
            if cancelled() { throw CancellationError() }
            let count = pread(fd, buffer.baseAddress, buffer.count, offset)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw StorageError.io(operation: "read", path: source.path, errno: errno) }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
            offset += off_t(count)
        }
        guard size == Int64(info.st_size) else { throw ArchiveError.changedDuringExport(path: file.archivePath) }
        // Changed within 2 s of the hashing (clocks tick coarsely): a later write could leave
        // the same times, so it is hashed again while written. A private database copy, open
        // and unlinked, can be written by no one.
        let changed = Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        let racy = descriptor == nil && max(changed, modified) >= hashingStarted.timeIntervalSince1970 - 2
        return item(sha256: Hex.encode(hasher.finalize()), rehash: racy)
    }
}
