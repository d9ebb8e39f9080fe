/// The remote services brados talks to. Each has its own server URL in the config,
/// falling back to the one `server` URL.
public enum Service: String, Sendable, CaseIterable, Codable, Hashable {
    /// BradOS REST: meal plans, visits, and sign-in on the reference server.
    case api
    /// A Plex Media Server (library).
    case plex
    /// Supabase: Auth + PostgREST (coach).
    case supabase
    /// The nutrition plan API (plan).
    case gtsd

    /// The config key of this service's server URL, e.g. `server.plex`.
    public var configKey: String { "server.\(rawValue)" }
    /// The environment variable of this service's server URL, e.g. `BRADOS_PLEX_SERVER`.
    public var environmentVariable: String { "BRADOS_\(rawValue.uppercased())_SERVER" }
}
