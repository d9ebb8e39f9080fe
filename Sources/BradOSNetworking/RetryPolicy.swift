import BradOSErrors
import Foundation

/// When and how long to wait before retrying a failed request.
///
/// Defaults: at most 3 retries, exponential backoff from 1 s doubling to a 10 s cap,
/// ±20 % jitter, `Retry-After` honoured for 429/503, 300 s for the whole operation.
/// Only errors whose ``BradOSError/isRetryable`` is true are retried (connection
/// failures, timeouts, 5xx, 429) — never another 4xx.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt: 3 by default.
    public var maxRetries: Int
    /// The first backoff delay: 1 s by default.
    public var baseDelay: Duration
    /// The largest backoff delay: 10 s by default.
    public var maxDelay: Duration
    /// Fraction of random spread around each delay: 0.2 by default.
    public var jitter: Double
    /// The limit for the whole operation, retries and waits included: 300 s by default.
    public var operationTimeout: Duration
    /// The longest `Retry-After` worth waiting for; a longer one is reported instead of
    /// waited out. `nil` (the default) waits for any, within ``operationTimeout``.
    public var maxRetryAfter: Duration?
    /// Whether a request that could not reach the server (refused, timed out, cut off) is
    /// retried at the same address: true by default. A client with other addresses to try
    /// (Plex's connections) turns it off and tries those instead.
    public var retriesConnectionFailures: Bool
    /// HTTP statuses never retried although their class is (a service whose 503 means "down
    /// for maintenance", not a passing failure): none by default.
    public var neverRetriedStatuses: Set<Int>

    public init(maxRetries: Int = 3, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(10),
                jitter: Double = 0.2, operationTimeout: Duration = .seconds(300), maxRetryAfter: Duration? = nil,
                retriesConnectionFailures: Bool = true, neverRetriedStatuses: Set<Int> = []) {
        self.retriesConnectionFailures = retriesConnectionFailures
        self.neverRetriedStatuses = neverRetriedStatuses
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.operationTimeout = operationTimeout
        self.maxRetryAfter = maxRetryAfter
    }

    /// The standard policy.
    public static let standard = RetryPolicy()

    /// Whether `failure` is an HTTP status this policy never retries (``neverRetriedStatuses``).
    func neverRetries(_ failure: any BradOSError) -> Bool {
        guard !neverRetriedStatuses.isEmpty, case let .http(status, _, _, _, _)? = failure as? NetworkError else { return false }
        return neverRetriedStatuses.contains(status)
    }

    /// The wait before retry number `retry` (0-based), given a random value in 0…1.
    /// A server's `Retry-After` replaces the computed backoff.
    public func delay(beforeRetry retry: Int, retryAfter: Duration? = nil, random: Double) -> Duration {
        if let retryAfter { return max(retryAfter, .zero) }
        let exponential = baseDelay * (1 << min(retry, 30))
        let capped = min(exponential, maxDelay)
        let factor = 1 + jitter * (2 * min(max(random, 0), 1) - 1)
        return min(capped * factor, maxDelay)
    }
}

/// Runs an operation under a ``RetryPolicy`` with an injected clock and random source,
/// so tests never sleep. Thread-safe.
public struct Retrier: Sendable {
    public var policy: RetryPolicy
    public var clock: any Clock<Duration>
    public var random: @Sendable () -> Double

    public init(policy: RetryPolicy = .standard, clock: any Clock<Duration> = ContinuousClock(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) {
        self.policy = policy
        self.clock = clock
        self.random = random
    }

    /// Runs `operation`, retrying retryable failures.
    /// - Parameter onRetry: told of each retry before its wait (for logs and progress).
    /// - Throws: the last error (at once when the server's `Retry-After` does not fit what is
    ///   left of the operation limit), or ``NetworkError/operationTimedOut(seconds:)`` when
    ///   brados's own next backoff would pass it.
    public func run<T: Sendable>(
        onRetry: (_ retry: Int, _ delay: Duration, _ error: any Error) -> Void = { _, _, _ in },
        _ operation: (_ attempt: Int) async throws -> T
    ) async throws -> T {
        let elapsed = clock.stopwatch()
        var retry = 0
        while true {
            do {
                return try await operation(retry)
            } catch {
                guard retry < policy.maxRetries,
                      let failure = error as? any BradOSError, failure.isRetryable,
                      policy.retriesConnectionFailures || !((failure as? NetworkError)?.isConnectionFailure ?? false),
                      !policy.neverRetries(failure)
                else { throw error }
                let retryAfter = (failure as? NetworkError)?.retryAfter
                // A server asking for a longer pause than the policy waits for: report it now.
                if let retryAfter, let limit = policy.maxRetryAfter, retryAfter > limit { throw error }
                let delay = policy.delay(beforeRetry: retry, retryAfter: retryAfter, random: random())
                // The limit covers the whole operation: the attempts so far, and the wait. A
                // server's own wait that does not fit is its answer, at once (429: exit 9, with
                // the wait), in every domain alike; only brados's own backoff times out.
                guard elapsed() + delay <= policy.operationTimeout else {
                    if retryAfter != nil { throw error }
                    throw NetworkError.operationTimedOut(seconds: Int(policy.operationTimeout.components.seconds))
                }
                onRetry(retry + 1, delay, error)
                try await clock.sleep(for: delay)
                retry += 1
            }
        }
    }
}

extension Clock where Duration == Swift.Duration {
    /// A function returning the time elapsed on this clock since `stopwatch()` was called.
    func stopwatch() -> @Sendable () -> Swift.Duration {
        let start = now
        return { start.duration(to: self.now) }
    }
}
