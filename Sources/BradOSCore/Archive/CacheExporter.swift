import AgeEncryption
import Crypto
import Foundation
import GRDB
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
        var sha256: String
        var mode: mode_t
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
        var domains: [CacheArchiveManifest.Domain] = []
        for plugin in selected {
            var count = 0
            var bytes: Int64 = 0
            let made = staging.appendingPathComponent("made-\(plugin.name)", isDirectory: true)
            try FileSystem.createDirectory(made)
            for (index, file) in try plugin.exportFiles(in: profile, staging: made).enumerated() {
                try Task.checkCancellation()
                // Only names every import accepts (files brados did not write are left out).
                guard (try? CacheArchiveManifest.checkPath(file.archivePath)) != nil else { continue }
                var source = file.url
                if file.kind == .sqlite {
                    source = staging.appendingPathComponent("\(plugin.name)-\(index).sqlite")
                    guard try Self.backup(file.url, to: source) else { continue }
                }
                // A file gone since it was listed (an evicted artwork) is simply not exported.
                guard var item = try Self.hash(file, domain: plugin.name, source: source) else { continue }
                if file.kind == .sqlite {
                    let copy = open(source.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
                    guard copy >= 0 else { throw StorageError.io(operation: "open", path: source.path, errno: errno) }
                    item.unlinkedCopy = copy
                    unlink(source.path)
                }
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
            guard fstat(fd, &info) == 0, Int64(info.st_size) == item.size,
                  info.st_mtim.tv_sec == item.modified.tv_sec, info.st_mtim.tv_nsec == item.modified.tv_nsec
            else { throw ArchiveError.changedDuringExport(path: item.file.archivePath) }
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
                hasher.update(bufferPointer: chunk)
                try writer.write(chunk)
                remaining -= Int64(count)
                done += Int64(count)
                progress(done, total)
            }
            // Rewritten in place since it was hashed (same size and time)? Then the manifest would lie.
            guard Hex.encode(hasher.finalize()) == item.sha256 else { throw ArchiveError.changedDuringExport(path: item.file.archivePath) }
        }
        try Task.checkCancellation()
        try writer.finish()
        try encryptor?.finish()
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

    /// Size, modification time, SHA-256 and mode of a file; `nil` when it vanished.
    static func hash(_ file: ExportFile, domain: String, source: URL) throws -> Item? {
        let fd = open(source.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw StorageError.io(operation: "open", path: source.path, errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StorageError.io(operation: "stat", path: source.path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var size: Int64 = 0
        while true {
            try Task.checkCancellation()
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw StorageError.io(operation: "read", path: source.path, errno: errno) }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
        }
        guard size == Int64(info.st_size) else { throw ArchiveError.changedDuringExport(path: file.archivePath) }
        return Item(file: file, domain: domain, source: source, size: size, modified: info.st_mtim,
                    sha256: Hex.encode(hasher.finalize()), mode: info.st_mode & 0o777)
    }
}
