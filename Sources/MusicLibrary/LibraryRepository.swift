import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation
import Logging
import Synchronization

/// Library logic behind `brados library …`: refreshes that bring the cache up to date by
/// what changed (``Refresh``, in LibraryRepository+Refresh.swift), cache-first reads of what
/// is shown, album detail, artwork.
public struct LibraryRepository: Sendable {
    public let storage: LibraryCacheHandle
    public let artwork: ArtworkCache
    let api: @Sendable () async throws -> any PlexAPI
    let now: @Sendable () -> Date
    let logger: Logger
    /// The section used when a command names none (`library.section`): a key or a title.
    public var defaultSection: String?
    /// The least time between two background refreshes (`library.min-refresh-interval`), read
    /// only by the commands that refresh in the background (a bad value fails those, not every
    /// library command).
    public var minRefreshInterval: @Sendable () throws -> Duration
    /// When the last background refresh started (`nil`: no limit).
    public var refreshStamp: RefreshStamp?
    /// The media server the library comes from, read locally: the machine identifier of the
    /// server chosen through plex.tv or signed in to directly; `nil` for the BradOS server's
    /// Plex routes (and before a server is chosen). The snapshot and the artwork are kept per
    /// server, so `library use` of another never shows the last one's albums or images.
    let origin: @Sendable () -> String?
    /// Called after each refresh that loaded the library from the network, with what the
    /// command shows (the live repository's starts that first screen's prefetch in the
    /// background); `nil` for none.
    public var afterRefresh: (@Sendable (LibrarySnapshot, FirstScreen) -> Void)?

    /// What a command's first screen shows, so its covers are the ones prefetched.
    public enum FirstScreen: String, Sendable {
        case albums, collections
    }
    /// Where albums' details (`library show`) are kept, per server and rating key (`nil`: not kept).
    public var detailsDirectory: URL?
    /// Where an album's background refresh keeps its stamp, lock and last failure: beside its
    /// kept details (`nil`: none; its refreshes run in the foreground).
    public var albumStamps: (@Sendable (_ ratingKey: String) -> RefreshStamp)?

    public init(storage: LibraryCacheHandle, artwork: ArtworkCache, now: @escaping @Sendable () -> Date,
                logger: Logger = Logger(label: "brados.library"), defaultSection: String? = nil,
                minRefreshInterval: @escaping @Sendable () throws -> Duration = { .zero }, refreshStamp: RefreshStamp? = nil,
                origin: @escaping @Sendable () -> String? = { nil }, api: @escaping @Sendable () async throws -> any PlexAPI) {
        self.origin = origin
        self.storage = storage
        self.artwork = artwork
        self.api = api
        self.now = now
        self.logger = logger
        self.defaultSection = defaultSection
        self.minRefreshInterval = minRefreshInterval
        self.refreshStamp = refreshStamp
    }

    /// The store of the command's profile (artwork cap from `library.artwork-cap`, refresh
    /// interval from `library.min-refresh-interval`).
    /// - Throws: ``ConfigError``, ``StorageError``.
    public static func live(_ env: AppEnvironment) throws -> LibraryRepository {
        let setting = env.settings.resolve(LibraryPlugin.capKey)
        guard let cap = setting.value.flatMap(parseByteSize), cap > 0 else {
            throw ConfigError.invalidValue(key: LibraryPlugin.capKey, value: setting.value ?? "", expected: "a size such as 250MB or 1GB")
        }
        let directory = LibraryPlugin.artworkDirectory(env.profile)
        let now = env.now
        let logger = env.logger
        // Opened on first use: a listing rendered from the snapshot never opens the artwork index.
        let blobs = LazyBlobStore(directory: directory) {
            try BlobStore(directory: directory, configuration: BlobStoreConfiguration(capacity: cap), now: now, logger: logger)
        }
        let defaults = env.defaults
        // Made once per command: every request (a prefetch runs four at once) shares one
        // connection choice, and one re-probe when its address stops answering.
        let memo = PlexAPIMemo()
        let api: @Sendable () async throws -> any PlexAPI = { try await memo.value {
            let identifier = try clientIdentifier(defaults)
            // Signed in through plex.tv: the chosen server, at the address that answered.
            let servers = PlexServers(env)
            if let client = try await servers.mediaClient(clientIdentifier: identifier) {
                return ReconnectingPlexAPI(current: PlexRESTClient(client: client)) {
                    guard let again = try await servers.mediaClient(clientIdentifier: identifier, reprobe: true) else { throw AuthError.notSignedIn(profile: env.profile.name.rawValue) }
                    return PlexRESTClient(client: again)
                }
            }
            var client = try await env.client(for: .plex, authScheme: PlexRESTClient.authScheme)
            client.defaultHeaders = PlexRESTClient.identificationHeaders(clientIdentifier: identifier)
            return PlexRESTClient(client: client)
        } }
        let origin: @Sendable () -> String? = { PlexServers(env).origin }
        var repository = LibraryRepository(
            storage: LibraryCacheHandle(profile: env.profile, logger: env.logger),
            artwork: ArtworkCache(blobs: blobs, directory: directory, logger: env.logger, origin: origin, now: env.now, api: api),
            now: env.now, logger: env.logger, defaultSection: env.settings.resolve(LibraryPlugin.sectionKey).value.flatMap { $0.isEmpty ? nil : $0 },
            minRefreshInterval: { try LibraryPlugin.minRefreshIntervalSetting.value(in: env.settings) },
            refreshStamp: .of(domain: LibraryPlugin.domainName, in: env.profile),
            origin: origin, api: api)
        let details = env.profile.cacheDirectory(for: LibraryPlugin.domainName).appendingPathComponent(".details", isDirectory: true)
        repository.detailsDirectory = details
        repository.albumStamps = { [profile = env.profile] key in
            RefreshStamp(url: details.appendingPathComponent(".refresh-stamp-album-\(key)"), profileFolders: [profile.cacheDirectory, profile.dataDirectory])
        }
        let artwork = repository.artwork
        repository.afterRefresh = { snapshot, shown in prefetchInBackground(after: snapshot, shown: shown, artwork: artwork, env: env) }
        return repository
    }

    /// A stable per-profile `X-Plex-Client-Identifier`, created on first use.
    static func clientIdentifier(_ defaults: any KeyValueStoring) throws -> String {
        try defaults.update { snapshot in
            if let existing = snapshot.value(String.self, forKey: "library.clientIdentifier") { return existing }
            let created = "brados-" + UUID().uuidString.lowercased()
            try snapshot.set(created, forKey: "library.clientIdentifier")
            return created
        }
    }

    /// The music section a command means: `wanted` (a key, else a title in any case), else the
    /// first music section.
    /// - Throws: ``LibraryError/noMusicSection``, ``LibraryError/noSuchSection(_:available:)``,
    ///   ``LibraryError/notMusic(_:available:)``.
    public static func choose(_ wanted: String?, from sections: [PlexSection]) throws -> PlexSection {
        guard let wanted else {
            guard let music = sections.first(where: \.isMusic) else { throw LibraryError.noMusicSection }
            return music
        }
        let named = sections.filter { $0.title.caseInsensitiveCompare(wanted) == .orderedSame }
        guard let found = sections.first(where: { $0.key == wanted }) ?? named.first(where: \.isMusic) ?? named.first else {
            throw LibraryError.noSuchSection(wanted, available: sections)
        }
        guard found.isMusic else { throw LibraryError.notMusic(found, available: sections) }
        return found
    }

    /// Brings the store up to date with a section, by what changed (see ``LibraryRepository/Refresh``).
    /// - Parameters:
    ///   - section: a section key or title; `library.section`, else the first music section, when `nil`.
    ///   - full: download every album again (`--full`), as when nothing is stored.
    /// - Throws: ``LibraryError``, ``NetworkError``, ``AuthError``, ``StorageError`` (nothing stored is lost then).
    ///   - shown: what the command shows first (whose covers a background prefetch fetches).
    public func refresh(section: String? = nil, full: Bool = false, shown: FirstScreen = .albums,
                        progress: @escaping @Sendable (Int, Int?) -> Void = { _, _ in }) async throws -> LibrarySnapshot {
        let snapshot = try await load(section: section, full: full, progress: progress)
        afterRefresh?(snapshot, shown)
        return snapshot
    }

    /// ``refresh(section:full:progress:)``'s work.
    private func load(section: String?, full: Bool, progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> LibrarySnapshot {
        let api = try await api()
        let chosen = try Self.choose(section ?? defaultSection, from: try await api.sections())
        let stored = storedForRefresh()
        let origin = origin()
        let current = full ? nil : (try? stored?.header()).flatMap { $0.sectionKey == chosen.key && $0.origin == origin ? $0 : nil }
        if let stored, let current, let changedAt = chosen.contentChangedAt, current.contentChangedAt == changedAt {
            // Nothing changed since the last refresh (one request): only the time it was confirmed moves.
            do {
                if let confirmed = try stored.confirm(current.generation, at: now()) {
                    return LibrarySnapshot(header: confirmed, changes: LibraryChanges(), database: stored)
                }
            } catch is StorageError {
                logger.warning("could not note the library's check in its store")
                return LibrarySnapshot(header: current, changes: LibraryChanges(), database: stored)
            }
        }
        func whole() async throws -> LibraryCache.Update {
            let all = try await api.albums(section: chosen.key, updatedAfter: nil, progress: progress)
            return .init(sectionKey: chosen.key, sectionTitle: chosen.title, origin: origin, albums: all.albums, whole: true, collections: [],
                         contentChangedAt: chosen.contentChangedAt, updatedThrough: all.seenThrough, at: now())
        }
        var update: LibraryCache.Update
        if let stored, let current, let cursor = current.updatedThrough, let wholeAt = current.wholeAt, chosen.contentChangedAt != nil,
           now().timeIntervalSince(wholeAt) < Refresh.wholeInterval {
            do {
                let found = try await Refresh.changes(api, section: chosen.key, since: cursor, database: stored, progress: progress)
                update = .init(sectionKey: chosen.key, sectionTitle: chosen.title, origin: origin, albums: found.albums, deletions: found.deletions,
                               whole: false, collections: [], contentChangedAt: chosen.contentChangedAt, updatedThrough: found.newest, at: now(),
                               base: current.generation)
            } catch is Refresh.Costlier {
                logger.info("finding what changed would list more albums than the section holds: listing every album")
                update = try await whole()
            }
        } else {
            update = try await whole()
        }
        update.collections = try await api.collections(section: chosen.key)
        update.at = now()
        // Plex also moves updatedAt when its own scans change nothing: such albums are not
        // rewritten, and no artwork is touched.
        do {
            guard let stored else { throw StorageError.io(operation: "write", path: storage.url.path, errno: ENOSPC) }
            let applied = try stored.apply(update)
            return LibrarySnapshot(header: applied.header, changes: applied.changes, database: stored)
        } catch is LibraryCache.BaseMoved {
            // Another refresh changed the store while this one read its changes: these apply
            // to a store that is gone, so every album is read again.
            return try await load(section: section, full: true, progress: progress)
        } catch let error as StorageError {
            // What Plex answered is shown all the same, from a copy in memory; the stored copy
            // stays as it was (a full disk, a store another process holds too long, a damaged file).
            logger.warning("could not store the library: \(error.logText)")
            let memory = try LibraryCache.inMemory(copying: stored, url: storage.url)
            let applied = try memory.apply(update)
            return LibrarySnapshot(header: applied.header, changes: applied.changes, database: memory)
        }
    }

    /// The store a refresh starts from: `nil` when it cannot be opened (a full disk leaves no
    /// room to create it, a damaged file): the refresh is then downloaded whole and shown from memory.
    func storedForRefresh() -> LibraryCache? {
        do { return try storage.database() } catch {
            logger.warning("could not open the library store: \(error.logText)")
            return nil
        }
    }

    /// The stored snapshot of a section, for ``Snapshot``. A snapshot of another section counts as missing.
    public func cached(section: String?) -> CachedEntry<LibrarySnapshot>? {
        let wanted = section ?? defaultSection
        guard let snapshot = snapshot(),
              wanted == nil || snapshot.sectionKey == wanted || snapshot.sectionTitle.caseInsensitiveCompare(wanted ?? "") == .orderedSame
        else { return nil }
        return .init(snapshot, savedAt: snapshot.savedAt)
    }

    /// The stored snapshot, if it is of the server in use (`nil` too when the store cannot be read:
    /// a read then goes to the server).
    public func snapshot() -> LibrarySnapshot? {
        do {
            guard let database = try storage.existingDatabase(), let header = try database.header(), header.origin == origin() else { return nil }
            return LibrarySnapshot(header: header, database: database)
        } catch {
            logger.warning("could not read the library store: \(error.logText)")
            return nil
        }
    }

    public func sections() async throws -> [PlexSection] { try await api().sections() }

    public func collectionAlbums(_ ratingKey: String) async throws -> [Album] { try await api().collectionAlbums(ratingKey) }

    /// The album for a rating key: from the snapshot, else live.
    /// - Throws: ``LibraryError/noSuchAlbum(_:)``, ``NetworkError``, ``AuthError``.
    public func album(_ ratingKey: String) async throws -> Album {
        if let album = try? snapshot()?.database.album(ratingKey) { return album }
        return try await fetchDetail(ratingKey).album
    }

    /// An album's detail, live.
    /// - Throws: ``LibraryError/noSuchAlbum(_:)``, ``NetworkError``, ``AuthError``.
    func fetchDetail(_ ratingKey: String) async throws -> AlbumDetail {
        let detail: AlbumDetail
        do { detail = try await api().album(ratingKey) } catch let error as NetworkError where error.kind == .notFound {
            try? detailDocument(ratingKey)?.remove()
            throw LibraryError.noSuchAlbum(ratingKey)
        }
        do { try detailDocument(ratingKey)?.save(CachedAlbumDetail(savedAt: now(), detail: detail)) } catch {
            logger.warning("could not keep the album's details: \(error.logText)")
        }
        return detail
    }

    /// Where `ratingKey`'s details are kept for the current server (`nil`: not kept).
    func detailDocument(_ ratingKey: String) -> VersionedJSONDocument<CachedAlbumDetail>? {
        guard let detailsDirectory, IdentifierRule.ratingKey.isValid(ratingKey) else { return nil }
        let server = origin().flatMap { IdentifierRule.token("server identifier").isValid($0) ? $0 : nil } ?? "server"
        return VersionedJSONDocument(url: detailsDirectory.appendingPathComponent("\(server)-\(ratingKey).json"), logger: logger)
    }
}

extension LibraryRepository {
    /// A section's albums and collections, snapshot first
    /// (``LibraryPlugin/cachePolicy(minRefreshInterval:)``); in scripts the refresh runs in
    /// `brados library revalidate`, at most one per `library.min-refresh-interval`.
    /// - Parameters:
    ///   - section: a key or title; `library.section`, else the first music section, when `nil`.
    ///   - noun: what the command shows, for notices and progress ("albums", "collections").
    ///   - full: download every album rather than what changed (`--full`).
    /// - Throws: ``ConfigError`` for an invalid `library.min-refresh-interval`.
    public func library(section: String?, noun: String = "albums", full: Bool = false) throws -> Snapshot {
        Snapshot(repository: self, section: section, noun: noun, full: full, minRefreshInterval: try minRefreshInterval())
    }

    /// An album's detail, by ``LibraryPlugin/detailPolicy``: live; on a failure a stored copy
    /// answers (and offline), what the snapshot knows.
    public func detail(_ ratingKey: String) -> Detail { Detail(repository: self, ratingKey: ratingKey) }

    /// See ``LibraryRepository/library(section:noun:)``.
    public struct Snapshot: CachedResource {
        let repository: LibraryRepository
        let section: String?
        public let noun: String
        let full: Bool
        let minRefreshInterval: Duration
        public var policy: CachePolicy { LibraryPlugin.cachePolicy(minRefreshInterval: minRefreshInterval) }
        public func stored() -> CachedEntry<LibrarySnapshot>? { repository.cached(section: section) }
        public func fetch(progress: @escaping FetchProgress) async throws -> LibrarySnapshot {
            try await repository.refresh(section: section, full: full, shown: noun == "collections" ? .collections : .albums, progress: progress)
        }

        public var backgroundRefresh: BackgroundRefresh? {
            BackgroundRefresh(command: ["library", "revalidate"] + (section.map { ["--section", $0] } ?? []), stamp: repository.refreshStamp)
        }
    }

    /// See ``LibraryRepository/detail(_:)``.
    public struct Detail: CachedResource {
        let repository: LibraryRepository
        let ratingKey: String
        public var noun: String { "album details" }
        public var policy: CachePolicy { LibraryPlugin.detailPolicy }
        /// The details kept from the last `library show`; else the snapshot's line for the
        /// album or collection, a stand-in shown only when the server cannot be asked.
        public func stored() -> CachedEntry<AlbumDetail>? {
            if let kept = repository.detailDocument(ratingKey)?.load() { return CachedEntry(kept.detail, savedAt: kept.savedAt) }
            return repository.snapshot().flatMap { snapshot in
                if let collection = snapshot.collections.first(where: { $0.ratingKey == ratingKey }) {
                    return CachedEntry(AlbumDetail(collection: collection), savedAt: snapshot.savedAt, standIn: true)
                }
                return (try? snapshot.database.album(ratingKey)).flatMap { $0 }.map {
                    CachedEntry(AlbumDetail(album: $0), savedAt: snapshot.savedAt, standIn: true)
                }
            }
        }

        /// - Throws: ``LibraryError/noSuchAlbum(_:)``, ``NetworkError``, ``AuthError``.
        public func fetch(progress: @escaping FetchProgress) async throws -> AlbumDetail { try await repository.fetchDetail(ratingKey) }

        /// `brados library revalidate --album KEY`; its stamp beside the kept details (in
        /// `.details`, so that they go together).
        public var backgroundRefresh: BackgroundRefresh? {
            guard let stamp = repository.albumStamps, IdentifierRule.ratingKey.isValid(ratingKey) else { return nil }
            return BackgroundRefresh(command: ["library", "revalidate", "--album", ratingKey], stamp: stamp(ratingKey))
        }
    }
}

/// A command's Plex client, made on first use and shared by every request after it.
actor PlexAPIMemo {
    private var task: Task<any PlexAPI, any Error>?

    func value(_ make: @escaping @Sendable () async throws -> any PlexAPI) async throws -> any PlexAPI {
        let task = self.task ?? Task { try await make() }
        self.task = task
        return try await task.value
    }
}

extension LibraryRepository {
    /// After a load from the network: the 1024 px covers of the first screen the command shows
    /// (albums, or collections), fetched by a detached `brados library prefetch --background`
    /// (which never runs twice at once), so the command's output and exit never wait on them.
    /// Nothing when `library.prefetch` is off, offline, or when no cover of that screen needs
    /// asking for (each cached, or known missing).
    static func prefetchInBackground(after snapshot: LibrarySnapshot, shown: FirstScreen, artwork: ArtworkCache, env: AppEnvironment) {
        guard !env.isOffline, env.settings.resolve(LibraryPlugin.prefetchKey).value.flatMap(parseBool) ?? true else { return }
        let rows = max(1, (env.io.terminalSize?.rows ?? 24) - 3)
        guard let items = try? snapshot.firstScreen(shown, limit: rows), items.contains(where: { artwork.wouldFetch($0, size: .list) }) else { return }
        do {
            try env.startInBackground(["library", "prefetch", "--background", "--rows", "\(rows)", "--section", snapshot.sectionKey]
                                      + (shown == .collections ? ["--collections"] : []))
        } catch {
            env.logger.debug("could not start the background prefetch", metadata: ["error": "\(error.logText)"])
        }
    }
}
