import BradOSErrors
import Foundation

/// A domain's freshness rules, as values. ``CacheReader`` carries them out; a domain declares
/// its policy in a few lines:
///
///     CachePolicy(freshFor: nil, revalidation: .never)            // kept until replaced (meal plan)
///     CachePolicy(freshFor: .seconds(300), revalidation: .behind)  // stale-while-revalidate (visits)
///     CachePolicy(freshFor: nil, revalidation: .behind)            // snapshot first (library, coach)
///     CachePolicy.remoteFirst                                      // ask first, copy on failure
///     CachePolicy(freshFor: ttl, revalidation: .behind, revalidateAfter: ttl / 2)  // plan
public struct CachePolicy: Sendable, Equatable {
    /// What happens to a copy that is still fresh.
    public enum Revalidation: Sendable, Equatable {
        /// A fresh copy is the answer: no request at all.
        case never
        /// Shown at once, then refreshed for the next read: in a detached background process
        /// (the resource's ``CachedResource/backgroundRefresh``), so the command returns in
        /// the time of a read from the cache; within `refresh.wait` when one is set (on a
        /// terminal what changed is shown after the copy, a script gets the refreshed copy);
        /// in the foreground where no background refresh can run (``CacheReader/answer(_:refresh:)``).
        case behind
    }

    /// How long a stored copy counts as fresh; `nil`: until it is replaced (never stale).
    public var freshFor: Duration?
    /// What happens to a fresh copy.
    public var revalidation: Revalidation
    /// A fresh copy younger than this is the answer with no request, whatever ``revalidation`` says.
    public var revalidateAfter: Duration
    /// The least time between two background refreshes of ``Revalidation/behind`` in scripts
    /// (`visits.min-refresh-interval`, `library.min-refresh-interval`): a script that reads in a
    /// loop starts one refresh per interval, not one per call. Zero: one per call.
    public var minimumRefreshInterval: Duration
    /// The failures a stored copy answers (the copy is shown with a notice, exit 0): no
    /// network or `--offline`, a server failure (5xx, a dropped connection, an answer that does
    /// not decode), rate limiting. Never an expired session or a refused key or value: the user
    /// must act, and the exit code says so.
    public var answeredFailures: Set<FailureKind>

    public static let defaultAnsweredFailures: Set<FailureKind> = [.offline, .server, .rateLimited]

    public init(freshFor: Duration?, revalidation: Revalidation, revalidateAfter: Duration = .zero,
                minimumRefreshInterval: Duration = .zero, answeredFailures: Set<FailureKind> = defaultAnsweredFailures) {
        self.freshFor = freshFor
        self.revalidation = revalidation
        self.revalidateAfter = revalidateAfter
        self.minimumRefreshInterval = minimumRefreshInterval
        self.answeredFailures = answeredFailures
    }

    /// Ask the network first every time; a stored copy answers its failures.
    public static let remoteFirst = CachePolicy(freshFor: .zero, revalidation: .never)

    /// Whether a stored copy is an acceptable answer to this failure.
    public func answers(_ error: any Error) -> Bool {
        guard let error = error as? any BradOSError else { return false }
        return answeredFailures.contains(error.kind)
    }

    /// What a stored copy of this age is, under this policy.
    public enum State: Sendable, Equatable {
        /// Fresh, and the answer as it is.
        case fresh
        /// Fresh, and due a refresh (``revalidation`` says how).
        case freshDue
        /// Past ``freshFor``: the network first, the copy on an answered failure.
        case stale
    }

    /// The state of a copy `age` seconds old (`nil`: unknown age). A copy from the future (a
    /// clock set back) is stale: its age means nothing.
    public func state(age: TimeInterval?) -> State {
        guard let freshFor else {
            guard revalidation != .never else { return .fresh }
            guard let age, age >= 0 else { return .freshDue }
            return age < Self.seconds(revalidateAfter) ? .fresh : .freshDue
        }
        guard let age, age >= 0, age < Self.seconds(freshFor) else { return .stale }
        if revalidation == .never || age < Self.seconds(revalidateAfter) { return .fresh }
        return .freshDue
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }
}
