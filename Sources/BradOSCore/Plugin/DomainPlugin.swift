import ArgumentParser
import BradOSStorage
import Foundation

/// What every domain module provides to brados: its command tree and the ownership of its
/// cache. The `brados` executable lists plugins in one registry array; adding a domain is
/// one new module plus one line there.
///
/// Only ``name``, ``summary`` and ``command`` are required; the others have defaults (a
/// plugin's own version is always the one called). By default a domain owns `<profile
/// cache>/<name>/` and `<profile data>/<name>/`: `stats()` measures them and `clear()` removes
/// them. What only some domains take part in is a capability a domain adopts, and the core
/// finds with `as?` (`Capabilities.swift`): ``Syncs`` (`brados sync`), ``FollowsLive``
/// (`sync --watch`), ``ShapesArchives`` (an export or import that is more than a copy of the
/// folders), ``FeedsSearch`` (`brados search`), ``ShowsToday`` (`brados today`), and
/// ``KeepsPersonalData``; the read paths, `today`, `search` and `calendar`, ask ``asShowsToday``,
/// ``asFeedsSearch`` and ``asAddsToCalendar`` instead (the same answer, chosen when the domain's
/// module is compiled). The core names no domain and no backend: what a domain talks to
/// (``services``) and how fresh its data is (its ``CachePolicy``) are the plugin's own.
public protocol DomainPlugin: Sendable {
    /// The command name and folder name, e.g. `mealplan`.
    var name: String { get }
    /// One line for `brados --help` and `brados cache stats`.
    var summary: String { get }
    /// The domain's root command.
    var command: any ParsableCommand.Type { get }
    /// Configuration keys the domain adds (e.g. a TTL): none by default.
    var configKeys: [ConfigKey] { get }
    /// The services the domain talks to other than the account service (``Service/account``),
    /// each with its `server.<name>` key and sign-in protocol (what `auth login --service` and
    /// `auth logout` reach): none by default.
    var services: [ServiceDescription] { get }
    /// The folders the domain owns in a profile.
    func folders(in profile: ProfileScope) -> [URL]
    /// Files, bytes and the newest write in the domain's folders.
    /// - Throws: ``StorageError``.
    func stats(in profile: ProfileScope) throws -> CacheStats
    /// Removes everything the domain stores for the profile.
    /// - Throws: ``StorageError``.
    func clear(in profile: ProfileScope) throws
    /// The plugin as ``ShowsToday`` when its type adopts it, else `nil`: never written by a
    /// domain (the capability's extension answers for a type that adopts it, see
    /// `Capabilities.swift`), so `brados today` finds its domains without a cast.
    var asShowsToday: (any ShowsToday)? { get }
    /// The plugin as ``FeedsSearch`` when its type adopts it, else `nil` (as ``asShowsToday``).
    var asFeedsSearch: (any FeedsSearch)? { get }
    /// The plugin as ``AddsToCalendar`` when its type adopts it, else `nil` (as ``asShowsToday``).
    var asAddsToCalendar: (any AddsToCalendar)? { get }
}

/// The databases of a staged import (see ``SQLiteRebuild``).
public enum ImportedDatabases {
    /// How one expected database is rebuilt: given its staged URL and a label for messages.
    public typealias Rebuild = (_ url: URL, _ label: String) throws -> Void

    /// Rebuilds each expected database (keyed `cache/<path>` or `data/<path>`, relative to the
    /// domain's folder) and refuses any other SQLite file or sidecar (`-wal`, `-shm`, `-journal`).
    /// - Throws: ``ArchiveError/unsafeEntry(path:reason:)``.
    public static func rebuild(domain: String, cache: URL, data: URL, databases: [String: Rebuild]) throws {
        for (prefix, folder) in [("cache", cache), ("data", data)] {
            for file in FileSystem.regularFiles(under: folder) {
                let label = "\(prefix)/\(domain)/\(file.relativePath)"
                if SQLiteStore.isSidecar(file.relativePath) {
                    throw ArchiveError.unsafeEntry(path: label, reason: "SQLite -wal, -shm and -journal files are never imported")
                }
                if let rebuild = databases["\(prefix)/\(file.relativePath)"] {
                    try rebuild(file.url, label)
                } else if file.relativePath.hasSuffix(".sqlite") || file.relativePath.hasSuffix(".db") || isSQLite(file.url) {
                    throw ArchiveError.unsafeEntry(path: label, reason: "the \(domain) domain keeps no database there")
                }
            }
        }
    }

    /// Whether a file starts with SQLite's header.
    static func isSQLite(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
    }
}

/// How `brados cache import` brings a domain in.
public enum ImportMode: String, Sendable, Codable {
    /// The archive's data replaces each imported domain's data.
    case replace
    /// The newer of each item stays, histories are unioned (``MergesByItem``); a domain
    /// without it: the archive's files are added, overwriting files at the same paths.
    case merge
}

/// What a `brados cache import` is about, for ``DomainPlugin/prepareImport(cache:data:context:)``.
public struct ImportContext: Sendable {
    /// The profile the archive was exported from, and when.
    public var archiveProfile: String
    public var archiveCreatedAt: Date
    /// The profile being imported into.
    public var target: ProfileScope
    /// `nil` when the domain is empty in the target (nothing to replace or merge).
    public var mode: ImportMode?
    /// `--discard-pending`: the user agreed to lose changes not yet sent.
    public var discardPending: Bool
    public var now: Date
    /// The remote account per service the archive's data belongs to (its manifest's `accounts`).
    public var archiveAccounts: [String: String]

    public init(archiveProfile: String, archiveCreatedAt: Date, target: ProfileScope, mode: ImportMode?, discardPending: Bool, now: Date,
                archiveAccounts: [String: String] = [:]) {
        self.archiveAccounts = archiveAccounts
        self.archiveProfile = archiveProfile
        self.archiveCreatedAt = archiveCreatedAt
        self.target = target
        self.mode = mode
        self.discardPending = discardPending
        self.now = now
    }
}

/// A flag a domain adds to `brados sync`, e.g. `--mealplan`.
public struct SyncFlag: Sendable, Hashable {
    /// The flag without its dashes.
    public var name: String
    public var help: String
    public init(name: String, help: String) {
        self.name = name
        self.help = help
    }
}

/// What `brados sync` was asked for.
public struct SyncOptions: Sendable, Equatable {
    /// The domains' flags that were given.
    public var flags: Set<String>
    /// `sync --watch` runs the sync, every ``Syncs/watchInterval``: a domain may look for what
    /// it leaves alone on a single sync (the meal plan, for a plan newly finalized elsewhere).
    public var watching: Bool
    public init(flags: Set<String> = [], watching: Bool = false) {
        self.flags = flags
        self.watching = watching
    }
    public func isSet(_ flag: SyncFlag) -> Bool { flags.contains(flag.name) }
}

/// Sizes of a domain's stored data.
public struct CacheStats: Sendable, Codable, Equatable {
    public var files: Int
    public var bytes: Int64
    /// The domain's own count of cached things (visits, albums and artwork, messages…), when it has one.
    public var entries: Int?
    public var oldest: Date?
    public var newest: Date?

    /// Files, bytes, oldest and newest write under `folders` (lock files and hidden bookkeeping,
    /// e.g. the artwork cache's emptied spare files, are not data).
    public static func measure(_ folders: [URL]) -> CacheStats {
        var stats = CacheStats()
        for folder in folders {
            for file in FileSystem.regularFiles(under: folder)
            where !file.relativePath.hasSuffix(".lock") && !file.relativePath.hasPrefix(".") && !file.relativePath.contains("/.") {
                stats.files += 1
                stats.bytes += file.size
                stats.newest = max(stats.newest ?? file.modified, file.modified)
                stats.oldest = min(stats.oldest ?? file.modified, file.modified)
            }
        }
        return stats
    }

    public init(files: Int = 0, bytes: Int64 = 0, entries: Int? = nil, oldest: Date? = nil, newest: Date? = nil) {
        self.files = files
        self.bytes = bytes
        self.entries = entries
        self.oldest = oldest
        self.newest = newest
    }
}

/// One file a domain contributes to an export.
public struct ExportFile: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// Copied byte for byte.
        case file
        /// An SQLite database, copied through SQLite's online backup.
        case sqlite
    }

    /// The path inside the archive, relative to the profile: `cache/<domain>/…` or `data/<domain>/…`.
    public var archivePath: String
    public var url: URL
    public var kind: Kind
    /// Content made for the export (e.g. from a key-value store), kept in memory: no file of
    /// it is ever written, so an encrypted export leaves nothing unencrypted on a disk.
    public var contents: Data?

    public init(archivePath: String, url: URL, kind: Kind) {
        self.archivePath = archivePath
        self.url = url
        self.kind = kind
    }

    /// A file made in memory for the export; `url` only names it in messages.
    public init(archivePath: String, contents: Data, url: URL) {
        self.archivePath = archivePath
        self.url = url
        self.kind = .file
        self.contents = contents
    }
}

extension DomainPlugin {
    public var configKeys: [ConfigKey] { [] }
    public var services: [ServiceDescription] { [] }

    public func folders(in profile: ProfileScope) -> [URL] {
        [profile.cacheDirectory(for: name), profile.dataDirectory(for: name)]
    }

    /// Files, bytes and the newest write in ``folders(in:)``, measured on disk.
    /// - Throws: nothing in this default (unreadable folders count as empty).
    public func stats(in profile: ProfileScope) throws -> CacheStats { CacheStats.measure(folders(in: profile)) }

    /// Removes the domain's folders (``folders(in:)``), durably (a cut never brings them back).
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public func clear(in profile: ProfileScope) throws {
        for folder in folders(in: profile) { try FileSystem.removeDurably(folder) }
    }

    /// Every regular file in the domain's folders (lock files, SQLite's -wal/-shm and hidden
    /// files excepted): the default export, which a plugin's own may build on.
    /// - Throws: nothing: folders that cannot be read contribute no files.
    public func allFiles(in profile: ProfileScope) throws -> [ExportFile] {
        let roots = [("cache", profile.cacheDirectory(for: name)), ("data", profile.dataDirectory(for: name))]
        return roots.flatMap { prefix, folder in
            FileSystem.regularFiles(under: folder).compactMap { file -> ExportFile? in
                let path = file.relativePath
                // Locks, SQLite's sidecars (a journal left by a write in progress or a crash is
                // SQLite's, never a backup's) and damaged databases set aside stay behind.
                if path.hasSuffix(".lock") || SQLiteStore.isSidecar(path) || path.hasSuffix(".corrupt")
                    || path.contains("/.") || path.hasPrefix(".") { return nil }
                let kind: ExportFile.Kind = path.hasSuffix(".sqlite") || path.hasSuffix(".db") ? .sqlite : .file
                return ExportFile(archivePath: "\(prefix)/\(name)/\(path)", url: file.url, kind: kind)
            }
        }
    }
}
