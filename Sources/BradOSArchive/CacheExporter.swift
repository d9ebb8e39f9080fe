import AgeEncryption
import BradOSCore
import CArchiveLoader
import Crypto
import Foundation
import GRDB
import GRDBSQLite
#if canImport(Glibc)
import Glibc
import BradOSNetworking
import BradOSStorage
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
        /// `--with-settings`: the configuration values to carry in the manifest.
        public var settings: [String: String]?

        public init(compression: ArchiveCompression = .zstd, level: Int? = nil, domains: [String]? = nil, encryption: ArchiveEncryption? = nil,
                    settings: [String: String]? = nil) {
            self.settings = settings
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
    /// Held while the staging folder exists (see ``CacheImporter/marker``); `nil`: none.
    public let marker: StagingMarker?
    let now: @Sendable () -> Date
    /// Called when the compressor has drained, before the archive is named (tests signal there).
    var afterCompression: @Sendable () -> Void = {}

    public init(profile: ProfileScope, plugins: [any DomainPlugin], accounts: [String: String], stagingRoot: URL,
                marker: StagingMarker? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.marker = marker
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
            // A signal during the sync (the slow part of publishing) still ends the export unnamed.
            try file.publish(overwrite: overwrite, beforeNaming: { try Task.checkCancellation() })
            return report
        } catch {
            file.discard()
            if case StorageError.io(_, _, EEXIST) = error, !overwrite { throw ArchiveError.destinationExists(path: destination.path) }
            if case ArchiveError.destinationFull(nil) = error { throw ArchiveError.destinationFull(path: destination.path) }
            throw error
        }
    }

    /// Writes the archive to `fd`, in the phases of `CacheExporter+Phases.swift`: list,
    /// itemize (hash), write, remember.
    /// - Parameter progress: bytes written and the total, as it goes.
    /// - Throws: ``ArchiveError``, ``StorageError``, ``ConfigError`` for an unknown domain.
    public func export(to fd: Int32, options: Options, progress: (Int64, Int64) -> Void = { _, _ in }) throws -> Report {
        let selected = try selectedPlugins(options.domains)
        let hold = try marker?.hold()
        defer { hold?.finish() }
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

        // Listed (and databases copied) in order, then hashed on every core: hashing is most
        // of an export's work, and the manifest needs every checksum before the first file.
        var listed = try list(selected, staging: staging, options: options)
        defer { for entry in listed { if let copy = entry.copy { close(copy) } } }
        let known = ExportHashMemo.load(profile)
        let (items, domains) = try itemize(&listed, selected: selected, known: known)
        defer { for item in items { if let copy = item.unlinkedCopy { close(copy) } } }
        let manifest = CacheArchiveManifest(
            format: CacheArchiveManifest.formatName, formatVersion: CacheArchiveManifest.currentFormatVersion,
            bradosVersion: BradOSVersion.current, profile: profile.name.rawValue, accounts: accounts, createdAt: now(),
            compression: options.compression.rawValue, domains: domains,
            files: items.map { .init(path: $0.file.archivePath, domain: $0.domain, size: $0.size, sha256: $0.sha256,
                                     mode: Int($0.mode & 0o777), kind: $0.file.kind.rawValue) },
            settings: options.settings)
        try write(items, manifest: manifest, to: fd, options: options, progress: progress)
        remember(items, known: known)
        return Report(profile: profile.name.rawValue, compression: options.compression.rawValue, domains: domains,
                      files: items.count, bytes: manifest.totalBytes)
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

    /// The shared state of ``hashAll(_:)``'s threads.
    ///
    /// Safe because every read and write of its mutable state (`nextIndex`, `items`, `error`) happens inside
    /// `lock.withLock`, and `lock` itself is immutable.
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
}
