import ArgumentParser
import BradOSNetworking
import BradOSStorage
import Foundation

// What only some domains take part in. A domain adopts the capability (`extension
// VisitsPlugin: Syncs { … }`), and the core finds it with `as?`: a domain says in its type what
// it does, and nothing is told apart by testing an optional member a domain sets. The read
// paths (`today`, `search`, `calendar`) ask `asShowsToday`, `asFeedsSearch`, `asAddsToCalendar`: the
// compiler picks the capability's own answer (`self`) for a type that adopts it, the plain
// one (`nil`) for the others (`asAddsToCalendar` too, for `calendar`). A cast's first use for each plugin type scans every conformance
// record of the binary, six scans of 13,000 for one look over the plugins (bench/RESULTS.md).

/// `brados sync`: the domain refreshes its copy the way its policy says, and sends its pending
/// changes.
public protocol Syncs: DomainPlugin {
    /// What `brados sync` does for the domain, for its `--help` ("revalidates the cached visits").
    var syncDescription: String { get }
    /// Flags the domain adds to `brados sync` (e.g. `--mealplan`): none by default.
    var syncFlags: [SyncFlag] { get }
    /// How often `sync --watch` runs ``sync(_:options:)`` for a domain that does not
    /// ``FollowsLive`` (each domain's own policy still decides what is fetched): 5 minutes by default.
    var watchInterval: Duration { get }
    /// Refreshes the domain's cache the way its policy says and replays its pending operations.
    /// Returns a short summary (`20 visits`), or `nil` when there was nothing to sync.
    /// - Throws: the domain's errors (`brados sync` reports them and goes on with the others).
    func sync(_ env: AppEnvironment, options: SyncOptions) async throws -> String?
}

extension Syncs {
    public var syncFlags: [SyncFlag] { [] }
    public var watchInterval: Duration { .seconds(300) }
}

/// `brados sync --watch`: the domain keeps its cache following its service live.
public protocol FollowsLive: Syncs {
    /// What ``watch(_:tell:)`` follows, for `brados sync --help` ("conversations over Supabase
    /// Realtime").
    var watchDescription: String { get }
    /// Follows the service until the task is cancelled, catching up after every gap. `tell`
    /// takes what happened: a change or a catch-up (a line for `--verbose`), or a pause.
    /// - Throws: the domain's errors (`sync --watch` reports them and starts it again).
    func watch(_ env: AppEnvironment, tell: @escaping @Sendable (WatchEvent) -> Void) async throws
}

/// What a domain that ``FollowsLive`` tells `sync --watch` as it follows its service.
public enum WatchEvent: Sendable, Equatable {
    /// The feed caught up or took a change: the service answers. The words are a line for
    /// `--verbose` ("caught up (5 conversations)").
    case changed(String)
    /// Following paused after a gap: why (brados's words), how long until the next
    /// connection, and the host when it could not be reached at all (refused, timed out).
    case paused(reason: String, after: Duration, unreachable: Unreachable?)
}

/// `brados cache export/import`, for a domain whose archive is more than a copy of its
/// folders (every domain's folders are exported and imported; see ``DomainPlugin/archive``).
public protocol ShapesArchives: DomainPlugin {
    /// The version of the domain's on-disk formats (recorded in exports): 1 by default.
    var dataVersion: Int { get }
    /// The versions of an archive's data this brados imports (an older one it converts in
    /// ``prepareImport(cache:data:context:)``): ``dataVersion`` alone by default.
    var readableDataVersions: ClosedRange<Int> { get }
    /// What `brados cache import` does with the domain's data beyond copying it, for its
    /// `--help` (e.g. how imported queued changes are sent); `nil` by default.
    var importDescription: String? { get }
    /// The files the domain contributes to `brados cache export`. Content made for the export
    /// (e.g. from the key-value store) is best returned in memory (`ExportFile(archivePath:
    /// contents:url:)`), so an encrypted export writes nothing unencrypted; `staging` is a
    /// private folder (removed after the export) for what must be a file. By default
    /// ``DomainPlugin/allFiles(in:)``.
    /// - Throws: ``StorageError``.
    func exportFiles(in profile: ProfileScope, staging: URL) throws -> [ExportFile]
    /// Checks the domain's staged import before anything is swapped in (`cache` and `data`
    /// are the staged folders, which may not exist), with what the import is about (the
    /// archive, the mode, the target profile). By default any SQLite file is refused.
    /// - Throws: ``ArchiveError``.
    func prepareImport(cache: URL, data: URL, context: ImportContext) throws
    /// Called after `brados cache import` swapped the domain's folders in (`replacing`: the
    /// domain's previous data was replaced rather than merged). Nothing by default.
    /// - Throws: ``StorageError``.
    func didImport(into profile: ProfileScope, replacing: Bool) throws
}

extension ShapesArchives {
    public var dataVersion: Int { 1 }
    public var readableDataVersions: ClosedRange<Int> { dataVersion...dataVersion }
    public var importDescription: String? { nil }

    /// Exports ``DomainPlugin/allFiles(in:)``; `staging` is not used.
    /// - Throws: nothing in this default.
    public func exportFiles(in profile: ProfileScope, staging: URL) throws -> [ExportFile] { try allFiles(in: profile) }

    /// A domain with no databases: any SQLite file in its staged import is refused.
    /// - Throws: ``ArchiveError/unsafeEntry(path:reason:)`` for any SQLite file or sidecar.
    public func prepareImport(cache: URL, data: URL, context: ImportContext) throws {
        try ImportedDatabases.rebuild(domain: name, cache: cache, data: data, databases: [:])
    }

    /// Does nothing.
    /// - Throws: nothing in this default.
    public func didImport(into profile: ProfileScope, replacing: Bool) throws {}
}

/// How a domain takes part in archives: its own ``ShapesArchives``, or, for a domain without
/// one, a copy of its folders in which any SQLite file is refused.
struct CopiedFolders: ShapesArchives {
    let plugin: any DomainPlugin
    var name: String { plugin.name }
    var summary: String { plugin.summary }
    var command: any ParsableCommand.Type { plugin.command }
    func folders(in profile: ProfileScope) -> [URL] { plugin.folders(in: profile) }
}

extension DomainPlugin {
    /// `nil`: the type does not adopt ``ShowsToday`` (its extension answers for one that does).
    public var asShowsToday: (any ShowsToday)? { nil }
    /// `nil`: the type does not adopt ``FeedsSearch`` (its extension answers for one that does).
    public var asFeedsSearch: (any FeedsSearch)? { nil }
    /// `nil`: the type does not adopt ``AddsToCalendar`` (its extension answers for one that does).
    public var asAddsToCalendar: (any AddsToCalendar)? { nil }
}

extension AddsToCalendar {
    public var asAddsToCalendar: (any AddsToCalendar)? { self }
}

extension ShowsToday {
    public var asShowsToday: (any ShowsToday)? { self }
}

extension FeedsSearch {
    public var asFeedsSearch: (any FeedsSearch)? { self }
}

extension DomainPlugin {
    /// The domain's part in `brados cache export/import`: the one way archives reach a domain.
    public var archive: any ShapesArchives { self as? any ShapesArchives ?? CopiedFolders(plugin: self) }
}

/// `brados search`: the domain sends its documents to the search index.
public protocol FeedsSearch: DomainPlugin {
    /// What `brados search` finds in the domain, for its `--help` ("message text and
    /// conversation titles").
    var searchDescription: String { get }
    /// Sends the domain's documents to the search index (see ``SearchFeed`` for the protocol).
    /// Called before every search, so it must cost nothing when the cache has not moved: read
    /// the stamp first.
    /// - Throws: the domain's storage errors; ``SearchFeed``'s.
    func searchDocuments(in profile: ProfileScope, into feed: SearchFeed) throws
}

/// `brados today`: the domain's part of the day's screen.
public protocol ShowsToday: DomainPlugin {
    /// The domain's section, from its cache (``TodayContext/read(_:)``): `nil` when the domain
    /// has nothing to say today (then it is left out).
    /// - Throws: the domain's errors reading its cache (`brados today` shows the others).
    func todaySection(_ context: TodayContext) async throws -> TodaySection?
}
