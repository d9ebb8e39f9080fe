import Foundation

/// How a reference server runs.
public struct ServerConfiguration: Sendable {
    /// The address to bind: `127.0.0.1` by default.
    public var host: String
    /// The port: 8080 by default; 0 picks a free one.
    public var port: Int
    /// Where the SQLite database lives; `nil` keeps it in memory.
    public var dataDirectory: URL?
    /// Whether to seed the demo users and data on an empty database: `true` by default.
    public var seedDemo: Bool
    /// Changes the deterministic demo content (recipes, generated plans): 0 by default.
    public var seed: Int
    /// Lifetime of access tokens in seconds: 3600 by default.
    public var tokenTTL: Int
    /// Serve `/_admin/stats` and `/_admin/faults`: off by default.
    public var admin: Bool
    /// The Supabase project's `anon` API key every `/auth/v1` and `/rest/v1` request must carry.
    public var supabaseAnonKey: String

    /// How long a plex.tv pin (`POST /api/v2/pins`) lives, seconds: 1800 by default, as on plex.tv.
    public var plexPinLifetime: Int = 1800

    /// Sizes for benchmarks (bench/scale.py): the demo user's first conversation gets this many
    /// messages (2,400 by default) ...
    public var coachMessages: Int?
    /// ... and the demo user has this many conversations in all (8 by default; the extra ones are short).
    public var coachConversations: Int?

    /// The music library's size in albums (benchmarks; a few hundred by default).
    public var plexAlbums: Int?
    /// How many albums were added in each second, as a scan or an import leaves them (4: a
    /// scan; 10,000: a bulk import, all in one second); `nil`: spread over three years.
    public var plexAddedPerSecond: Int?
    /// Albums with every field a real Plex server sends in a listing (guids, keys, summary,
    /// images, analysis versions: about 650 bytes each in JSON) rather than the ones brados reads.
    public var plexRealAlbums = false

    /// Plan generations (`POST /v1/plans/generate`) a client (its bearer token, else its
    /// address) may ask for in ``planRateWindow``: 20 by default, the plan service's limit;
    /// 0 turns the limit off. One more is answered 429 with `Retry-After`.
    public var planRateLimit: Int = 20
    /// The window of ``planRateLimit`` in seconds: 60 by default (20 a minute).
    public var planRateWindow: Int = 60
    /// The clock of the plan rate limit (tests fix it, so a slow machine never moves a wait).
    public var planRateClock: @Sendable () -> Date = { Date() }

    /// A Unix domain socket to listen on instead of `host`/`port` (the embedded backend).
    public var unixSocket: String?

    /// The anon key of the reference server (and brados's default `coach.anon-key`).
    public static let defaultAnonKey = "brados-reference-anon-key"

    public init(host: String = "127.0.0.1", port: Int = 8080, dataDirectory: URL? = nil, seedDemo: Bool = true,
                seed: Int = 0, tokenTTL: Int = 3600, admin: Bool = false,
                supabaseAnonKey: String = ServerConfiguration.defaultAnonKey) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.seedDemo = seedDemo
        self.seed = seed
        self.tokenTTL = tokenTTL
        self.admin = admin
        self.supabaseAnonKey = supabaseAnonKey
    }
}
