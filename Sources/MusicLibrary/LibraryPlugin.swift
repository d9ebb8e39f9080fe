import ArgumentParser
import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

extension Service {
    /// A Plex Media Server (`server.plex`).
    public static let plex = Service(rawValue: "plex")
}

/// The library domain: a Plex music client with an artwork cache and a metadata store read in part.
public struct LibraryPlugin: DomainPlugin, FollowsLive, FeedsSearch, ShapesArchives {
    public static let domainName = "library"
    public static let capKey = "library.artwork-cap"
    /// `library.section`: the music section commands use when they name none.
    public static let sectionKey = "library.section"
    /// `library.prefetch`: whether a load of the library from the network fetches the first
    /// screen's covers in the background (``LibraryRepository/prefetchInBackground(after:env:)``).
    public static let prefetchKey = "library.prefetch"

    public init() {}
    public var name: String { Self.domainName }
    public var summary: String { "Plex music library: instant from a snapshot, artwork cached (250 MB LRU)." }
    public var command: any ParsableCommand.Type { LibraryCommand.self }

    /// `library.min-refresh-interval`: a script listing in a loop starts one background
    /// refresh of the snapshot per interval, not one per call.
    public static let minRefreshIntervalSetting = DurationSetting(
        name: "library.min-refresh-interval", summary: "Least time between two background refreshes of the snapshot (scripts)",
        environmentVariable: "BRADOS_LIBRARY_MIN_REFRESH_INTERVAL", defaultValue: "30s", allowsZero: true)

    /// Snapshot first: the snapshot never expires; it is shown at once and refreshed behind it
    /// (in scripts, at most once per `minRefreshInterval`).
    public static func cachePolicy(minRefreshInterval: Duration = .zero) -> CachePolicy {
        CachePolicy(freshFor: nil, revalidation: .behind, minimumRefreshInterval: minRefreshInterval)
    }

    /// An album's details: kept from the last `library show`, shown at once and refreshed
    /// behind once a day old; never shown before they are kept (the snapshot's line for the
    /// album only answers a failure).
    public static let detailPolicy = CachePolicy(freshFor: nil, revalidation: .behind, revalidateAfter: .seconds(86400))

    /// Plex: media servers found (and signed in to) through plex.tv; `server.plex` (or `server`)
    /// serves the library directly when the profile has no Plex sign-in.
    public var services: [ServiceDescription] {
        [ServiceDescription(.plex, summary: "a Plex Media Server (library)", signIn: { try PlexAccount.live($0) })]
    }
    public var syncDescription: String { "refreshes the snapshot and prefetches the first screen's artwork" }

    public var configKeys: [ConfigKey] {
        [ConfigKey(name: Self.capKey, summary: "Disk cap of the artwork cache, both sizes together",
                   environmentVariable: "BRADOS_LIBRARY_ARTWORK_CAP", defaultValue: "250MB", validate: ConfigKey.sizeValidator),
         Self.minRefreshIntervalSetting.configKey,
         ConfigKey(name: Self.prefetchKey, summary: "After the library loads from the network, fetch the first screen's covers in the background",
                   environmentVariable: "BRADOS_LIBRARY_PREFETCH", defaultValue: "true", validate: ConfigKey.boolValidator),
         ConfigKey(name: Self.sectionKey, summary: "The music section to use, by key or title (default: the server's first music section)",
                   environmentVariable: "BRADOS_LIBRARY_SECTION", defaultValue: nil, validate: { $0.isEmpty ? "a section key or title" : nil }),
         ConfigKey(name: PlexAccount.accountServerKey, summary: "plex.tv, where Plex sign-in and server discovery happen",
                   environmentVariable: "BRADOS_PLEX_ACCOUNT_SERVER", defaultValue: PlexAccount.defaultAccountServer, validate: ConfigKey.urlValidator)]
    }

    /// Files and bytes of the domain's folders; entries are the cached artwork images.
    public func stats(in profile: ProfileScope) throws -> CacheStats {
        var stats = CacheStats.measure(folders(in: profile))
        stats.entries = CacheStats.count("SELECT COUNT(*) FROM blob", in: Self.artworkDirectory(profile).appendingPathComponent("index.sqlite"))
        return stats
    }

    /// An imported artwork index and library store are rebuilt (never trusted as files); any
    /// other database is refused. The store's refresh state is dropped (its next refresh
    /// downloads every album). A JSON snapshot of an older brados must decode as it wrote it
    /// (rating keys are digits): a hostile one is refused (exit 8) rather than imported and
    /// then ignored; a sound one is moved into the store when the profile next opens it.
    public func prepareImport(cache: URL, data: URL, context: ImportContext) throws {
        try ImportedDatabases.rebuild(domain: name, cache: cache, data: data,
                                      databases: ["cache/artwork/index.sqlite": { try BlobStore.rebuildImported($0, label: $1) },
                                                  "data/library.sqlite": { try LibraryCache.rebuildImported($0, label: $1) }])
        let snapshot = data.appendingPathComponent("snapshot.json")
        if let bytes = try AtomicFile.readIfPresent(snapshot) {
            do { _ = try JSONCoding.decode(LegacyLibrarySnapshot.self, from: bytes) } catch {
                let reason = InvalidIdentifier.found(in: error)?.description ?? APIClient.describe(error)
                throw ArchiveError.unsafeEntry(path: "data/library/snapshot.json", reason: "it is not a snapshot brados reads (\(reason))")
            }
        }
        // The refresh state is another machine's: the next refresh is a full one.
        try? FileSystem.remove(data.appendingPathComponent("snapshot-state.json"))
    }

    /// `<profile cache>/library/artwork` (buckets `1024/` and `2048/`, and `index.sqlite`).
    public static func artworkDirectory(_ profile: ProfileScope) -> URL {
        profile.cacheDirectory(for: domainName).appendingPathComponent("artwork", isDirectory: true)
    }

    public var searchDescription: String { "album titles and artists, collection names" }

    /// The stored albums and collections (nothing when no store exists yet).
    public func searchDocuments(in profile: ProfileScope, into feed: SearchFeed) throws {
        let url = Self.databaseURL(profile)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try LibraryCache.feedSearch(at: url, feed)
    }

    /// Refreshes the store and prefetches the first screen's artwork (25 albums).
    public func sync(_ env: AppEnvironment, options: SyncOptions) async throws -> String? {
        var repository = try LibraryRepository.live(env)
        repository.afterRefresh = nil  // sync fetches the artwork itself, below
        let snapshot = try await repository.refresh()
        let report = try await repository.artwork.prefetch(try snapshot.albums(limit: 25))
        return "\(snapshot.albumCount) albums, \(report.fetched) artwork fetched"
    }

    public var watchDescription: String { "the Plex server's notifications: each change refreshes the library by what changed" }

    /// Follows the Plex server's notifications: each change refreshes the library by what changed.
    public func watch(_ env: AppEnvironment, tell: @escaping @Sendable (WatchEvent) -> Void) async throws {
        var repository = try LibraryRepository.live(env)
        repository.afterRefresh = nil // no background prefetch from a long-running process
        try await repository.watch(tell: tell)
    }

    /// Album rating keys from the store, for shell completion (local files only; keys that
    /// are not digits are left out).
    public static func cachedRatingKeys() -> [String] {
        CompletionValues.strings("SELECT ratingKey FROM album WHERE shown = 1 ORDER BY sortTitle, ratingKey",
                                 in: databaseURL(CompletionValues.scope().profile)).filter(IdentifierRule.ratingKey.isValid)
    }

    /// `<profile data>/library/library.sqlite`.
    public static func databaseURL(_ profile: ProfileScope) -> URL {
        profile.dataDirectory(for: domainName).appendingPathComponent("library.sqlite")
    }
}
