import Foundation

/// A remote service brados talks to, by name. Each has its own server URL in the config
/// (`server.<name>`), falling back to the one `server` URL.
///
/// The core knows one service, ``account``: brados's own REST server, where `brados auth
/// login` signs in by default and which domains use when they have no server of their own.
/// Every other service is declared by the domain plugin that uses it
/// (``DomainPlugin/services``), with its sign-in protocol.
public struct Service: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The account service (`api`): brados's own REST server and its sign-in.
    public static let account = Service(rawValue: "api")

    /// The config key of this service's server URL, e.g. `server.api`.
    public var configKey: String { "server.\(rawValue)" }
    /// The environment variable of this service's server URL, e.g. `BRADOS_API_SERVER`.
    /// (By its ASCII bytes: every start computes it for each service, and Foundation's string
    /// replacement was a few percent of a warm read's start-up.)
    public var environmentVariable: String {
        let name = rawValue.utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - 32
            case UInt8(ascii: "-"): UInt8(ascii: "_")
            default: byte
            }
        }
        return "BRADOS_" + String(decoding: name, as: UTF8.self) + "_SERVER"
    }
    public var description: String { rawValue }
}
