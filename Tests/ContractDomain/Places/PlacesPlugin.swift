import ArgumentParser
import BradOSCore
import BradOSErrors
import BradOSStorage
import BradOSTerminal
import Foundation

/// A sixth domain that exists only in the tests (the `brados-contract` executable), to prove
/// the plugin contract: it is this folder plus one registry line, and gets `cache
/// stats/clear/export/import`, logout, `sync` (with a flag of its own), `config` keys, the
/// shared `--json` `source`, help and completion without any edit of the core.
///
/// The places you visited, from the account server's visit history (`GET /api/visits`),
/// cached in one JSON file with a TTL of its own (`places.ttl`).
public struct PlacesPlugin: DomainPlugin, Syncs, FeedsSearch, ShowsToday {
    public static let domainName = "places"
    public static let ttlSetting = DurationSetting(name: "places.ttl", summary: "How long cached places count as fresh",
                                                   environmentVariable: "BRADOS_PLACES_TTL", defaultValue: "10m", allowsZero: true)
    /// Fresh for the TTL with no request; past it, fetched first with the cached list as the answer to a failure.
    public static func cachePolicy(ttl: Duration) -> CachePolicy { CachePolicy(freshFor: ttl, revalidation: .never) }
    /// `brados sync --places`.
    public static let syncFlag = SyncFlag(name: "places", help: "Refresh the places too.")

    public init() {}
    public var name: String { Self.domainName }
    public var summary: String { "Places you visited (a test domain: the plugin contract)." }
    public var command: any ParsableCommand.Type { PlacesCommand.self }
    public var configKeys: [ConfigKey] { [Self.ttlSetting.configKey] }
    public var syncFlags: [SyncFlag] { [Self.syncFlag] }
    public var syncDescription: String { "refreshes the places (only with --places)" }

    public func sync(_ env: AppEnvironment, options: SyncOptions) async throws -> String? {
        guard options.isSet(Self.syncFlag) else { return nil }
        return "\(try await PlacesStore(env).fetch().count) places"
    }

    /// `brados search` finds the cached place names (sent again whenever the file is rewritten).
    public var searchDescription: String { "place names" }

    public func searchDocuments(in profile: ProfileScope, into feed: SearchFeed) throws {
        let document = PlacesStore.document(profile)
        guard let stamp = SearchStamp.file(document.url) else { return }
        try feed.replace(stamp: stamp) {
            (document.load()?.places ?? []).map { place in
                SearchDocument(key: "place:" + place.name, title: place.name, body: "visited \(place.visits) times", date: nil,
                               command: "brados places show '" + place.name.replacingOccurrences(of: "'", with: "'\\''") + "'")
            }
        }
    }

    /// `brados today` shows the most visited place.
    public func todaySection(_ context: TodayContext) async throws -> TodaySection? {
        guard let read = await context.read(try PlacesStore(context.env)) else { return .nothingCached("Places", fill: "brados places") }
        guard let top = read.value.first else { return TodaySection(title: "Places", lines: ["no places yet"], json: ["mostVisited": .null]) }
        return TodaySection(title: "Places", lines: ["Most visited: \(top.name) (\(top.visits) visits)"],
                            json: ["mostVisited": .object(["name": .string(top.name), "visits": .number(Double(top.visits))])], staleAge: read.staleAge)
    }

    /// Cached place names, for shell completion (local files only).
    public static func cachedNames() -> [String] {
        PlacesStore.document(CompletionValues.scope().profile).load()?.places.map(\.name) ?? []
    }
}

/// One place and how often it was visited.
public struct Place: Codable, Sendable, Equatable {
    public var name: String
    public var visits: Int
}

/// The cached list.
struct CachedPlaces: Codable, Sendable {
    var savedAt: Date
    var places: [Place]
}

/// Fetches and caches the places of the profile: what `places list` reads.
struct PlacesStore: CachedResource {
    let env: AppEnvironment
    let ttl: Duration
    /// - Throws: ``ConfigError`` for an invalid `places.ttl`.
    init(_ env: AppEnvironment) throws {
        self.env = env
        ttl = try PlacesPlugin.ttlSetting.value(in: env.settings)
    }

    static func document(_ profile: ProfileScope) -> JSONDocument<CachedPlaces> {
        JSONDocument(url: profile.cacheDirectory(for: PlacesPlugin.domainName).appendingPathComponent("places.json"))
    }

    var noun: String { "places" }
    var policy: CachePolicy { PlacesPlugin.cachePolicy(ttl: ttl) }
    func stored() -> CachedEntry<[Place]>? { Self.document(env.profile).load().map { CachedEntry($0.places, savedAt: $0.savedAt) } }
    func fetch(progress: @escaping FetchProgress) async throws -> [Place] { try await fetch() }

    func fetch() async throws -> [Place] {
        struct Row: Decodable { var place: String }
        let rows = try await env.client(for: .account).decode([Row].self, .get("/api/visits"))
        let counts = Dictionary(grouping: rows, by: \.place).map { Place(name: $0.key, visits: $0.value.count) }
        let places = counts.sorted { ($0.visits, $1.name) > ($1.visits, $0.name) }
        try Self.document(env.profile).save(CachedPlaces(savedAt: env.now(), places: places))
        return places
    }
}

public struct PlacesCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "places", abstract: "Places you visited, most visited first (a test domain).",
        subcommands: [List.self, Show.self], defaultSubcommand: List.self)
    public init() {}

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the places (cached for `places.ttl`).")
        @Flag(help: "Ignore the cache.") var refresh = false
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let env = try await AppEnvironment.live(global)
            try await env.reader.show(try PlacesStore(env), refresh: refresh) { places, source in
                if env.output.format == .json {
                    struct Document: Encodable { var source: DataSource; var places: [Place] }
                    return try env.output.json(Document(source: source, places: places))
                }
                env.output.line("\(places.count) places · \(source.origin)")
                env.output.table(Table(headers: ["PLACE", "VISITS"], rows: places.map { [$0.name, "\($0.visits)"] }, rightAligned: [1]))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one cached place.")
        @Argument(help: "The place.", completion: .custom { _, _, _ in PlacesPlugin.cachedNames() }) var name: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let env = try await AppEnvironment.live(global)
            guard let place = PlacesStore.document(env.profile).load()?.places.first(where: { $0.name == name }) else {
                throw CommandError("There is no cached place '\(name)'.", recovery: "List them with `brados places`.", kind: .notFound)
            }
            env.output.line("\(place.name): \(place.visits) visits")
        }
    }
}
