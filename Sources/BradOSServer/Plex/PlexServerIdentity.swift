/// A Plex Media Server the plex.tv emulation lists: its name, who owns it, who it is shared
/// with, and where its routes are mounted on this port.
struct PlexServerIdentity: Sendable {
    var name: String
    var machineIdentifier: String
    var owner: String
    var sharedWith: [String]
    /// The path its routes are mounted under (`""`: the root); also at `<prefix>/relay` when it has a relay.
    var prefix: String
    /// Whether it is listed with a local connection that is refused, a working remote one and a relay.
    var hasLocalAndRelay: Bool
    /// The root server also takes the reference server's own access tokens (as before plex.tv was emulated).
    var takesBradOSTokens: Bool
}
