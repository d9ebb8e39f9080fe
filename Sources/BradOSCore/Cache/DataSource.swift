import BradOSTerminal
import Foundation

/// Where data shown by a read command came from: the one type every domain renders, so that
/// every `--json` document has the same `source` object and every notice the same wording.
///
/// JSON (always these six keys):
///
///     "source": {"kind": "cache", "ageSeconds": 420, "stale": true, "refreshing": false,
///                "reason": "The server failed (503 Service Unavailable).",
///                "notice": "showing cached visits from 7 minutes ago: The server failed (503 Service Unavailable)."}
///
/// - `kind`: `network` (fetched by this command) or `cache` (a stored copy).
/// - `ageSeconds`: how old the stored copy is; `null` for the network or an unknown age.
/// - `stale`: the copy is past the domain's freshness limit (see ``CachePolicy``).
/// - `refreshing`: a background process is refreshing the copy for the next read.
/// - `reason`: why a stored copy was shown instead of the network: `offline mode`, or the
///   failure that the copy answered; `null` when the copy was simply fresh.
/// - `notice`: the line printed on stderr about it, `null` when none was.
public struct DataSource: Sendable, Equatable, Encodable {
    public enum Kind: String, Sendable, Equatable, Encodable {
        case network
        case cache
    }

    public var kind: Kind
    public var age: TimeInterval?
    public var stale: Bool
    /// A background process refreshes the copy for the next read.
    public var refreshing: Bool = false
    public var reason: String?
    public var notice: String?

    /// The reason given when `--offline` (or `BRADOS_OFFLINE`) kept the network off.
    public static let offlineReason = "offline mode"

    /// Fetched by this command.
    public static let network = DataSource(kind: .network, age: nil, stale: false, reason: nil, notice: nil)

    /// A stored copy, `age` seconds old. With a `reason`, the notice about it is worded here,
    /// for the things the domain shows (`noun`, plural: "visits", "albums").
    public static func cache(age: TimeInterval?, stale: Bool = false, reason: String? = nil, noun: String = "data") -> DataSource {
        DataSource(kind: .cache, age: age, stale: stale, reason: reason,
                   notice: reason.map { Self.wording($0 == offlineReason ? .offline(age: age) : .fallback(age: age, reason: $0), noun: noun) })
    }

    /// What a notice is about.
    public enum Situation: Sendable, Equatable {
        /// Offline mode: a stored copy shown without asking the network.
        case offline(age: TimeInterval?)
        /// The network failed in a way a stored copy answers: the copy is shown.
        case fallback(age: TimeInterval?, reason: String)
        /// A fresh copy was shown, and checking for a newer one failed.
        case revalidationFailed(reason: String)
        /// A stale copy shown at once, refreshed in the background (`started`: one was started).
        case staleRefreshing(age: TimeInterval?, started: Bool)
        /// The last background refresh failed, `ago` seconds ago (an expired session's way on, `recovery`).
        case backgroundFailed(ago: TimeInterval, reason: String, recovery: String?)
    }

    /// Every cache notice of every domain, worded in one place.
    public static func wording(_ situation: Situation, noun: String) -> String {
        switch situation {
        case let .offline(age): "offline: showing cached \(noun) from \(ago(age))."
        case let .fallback(age, reason): "showing cached \(noun) from \(ago(age)): \(reason)"
        case let .revalidationFailed(reason): "could not check for new \(noun): \(reason)"
        case let .staleRefreshing(age, started):
            "showing \(noun) cached \(ago(age)), out of date" + (started ? "; refreshing \(pronoun(noun)) in the background for your next command." : ".")
        case let .backgroundFailed(ago, reason, recovery):
            "the last refresh of the \(noun) in the background failed (\(Format.ago(max(ago, 0)))): \(reason)" + (recovery.map { " \($0)" } ?? "")
        }
    }

    /// "them" for what is shown in the plural ("visits"), "it" for one thing ("plan", "meal plan").
    static func pronoun(_ noun: String) -> String { noun.hasSuffix("s") ? "them" : "it" }

    /// The headline's origin text: `from the network`, `from cache (saved 5 minutes ago, expired)`.
    public var origin: String {
        switch kind {
        case .network: "from the network"
        case .cache: "from cache (saved \(Self.ago(age))\(stale ? ", expired" : "")\(refreshing ? "; refreshing behind" : ""))"
        }
    }

    private static func ago(_ age: TimeInterval?) -> String { age.map { Format.ago(max($0, 0)) } ?? "earlier" }

    enum CodingKeys: String, CodingKey { case kind, ageSeconds, stale, refreshing, reason, notice }

    /// Encodes `kind`, `ageSeconds` (whole seconds, never negative), `stale`, `refreshing`, `reason` and `notice`.
    /// - Throws: `EncodingError` from `encoder`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(age.map { Int(max($0, 0)) }, forKey: .ageSeconds)
        try container.encode(stale, forKey: .stale)
        try container.encode(refreshing, forKey: .refreshing)
        try container.encode(reason, forKey: .reason)
        try container.encode(notice, forKey: .notice)
    }
}
