import BradOSErrors
import BradOSTerminal
import Foundation
import Synchronization

/// Keeps a live feed connected (Supabase Realtime, Plex's notifications): `connect` runs one
/// connection until it ends; after any gap the next is tried after an exponential, jittered
/// wait that starts over once a connection is up, until the task is cancelled or a connection
/// says the feed is done. A cancelled connection (Ctrl-C, SIGTERM) ends the loop, whatever
/// its tasks threw as they stopped.
public enum LiveConnection {
    /// 0.5 s doubling to 30 s, ±50 %.
    public static let backoff = RetryPolicy(baseDelay: .milliseconds(500), maxDelay: .seconds(30), jitter: 0.5)

    /// The one sentence a person is told of a gap: why following paused, and when it
    /// follows again (it catches up on what it missed first).
    public static func paused(_ reason: String, after wait: Duration) -> String {
        let why = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
        return "following paused (\(why)); following again \(wait > .zero ? "in \(Format.duration(wait))" : "now"), after catching up on what was missed."
    }

    /// A reason for a gap from any error, in brados's words (it goes into logs: never text the
    /// server sent, ``BradOSError/logSummary``), else a transport error in a few words.
    public static func reason(_ error: any Error) -> String {
        (error as? any BradOSError)?.logSummary ?? NetworkError.describe(error).1
    }

    /// Why one connection ended.
    public struct Gap: Sendable, Equatable {
        public var reason: String
        /// Try the next connection at once, the first time (an expired token, renewed first).
        public var retryAtOnce: Bool
        /// The host that could not be reached at all (refused, unresolved, timed out), when
        /// that was the gap: not a connection that dropped.
        public var unreachable: Unreachable?

        public init(reason: String, retryAtOnce: Bool = false, unreachable: Unreachable? = nil) {
            self.reason = reason
            self.retryAtOnce = retryAtOnce
            self.unreachable = unreachable
        }

        /// The gap an error left: its reason (``LiveConnection/reason(_:)``), and the host
        /// when it could not be reached.
        public init(_ error: any Error) {
            self.init(reason: LiveConnection.reason(error), unreachable: (error as? NetworkError)?.unreachable)
        }
    }

    /// - Parameters:
    ///   - gap: what an error that ended a connection means for the loop; it throws the errors
    ///     that must end the loop instead (a session gone; a refusal before anything connected).
    ///   - reconnecting: told why a connection ended and how long until the next.
    ///   - connect: one connection; `previous` is why the last one ended; it calls `connected`
    ///     once it is up, and returns `true` when the feed is done.
    /// - Throws: `CancellationError`, or what `gap` throws.
    public static func keep(backoff: RetryPolicy = backoff,
                            gap: @escaping @Sendable (_ error: any Error, _ everConnected: Bool) throws -> Gap,
                            reconnecting: @escaping @Sendable (Gap, Duration) async throws -> Void,
                            connect: @escaping @Sendable (_ previous: Gap?, _ connected: @escaping @Sendable () -> Void) async throws -> Bool) async throws {
        let attempts = Attempts()
        var previous: Gap?
        while true {
            try Task.checkCancellation()
            let ended: Gap
            do {
                if try await connect(previous, { attempts.connected() }) { return }
                ended = Gap(reason: "the server closed the connection")
            } catch where Task.isCancelled {
                throw CancellationError()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                ended = try gap(error, attempts.everConnected)
            }
            let attempt = attempts.next()
            let wait = ended.retryAtOnce && attempt == 0 ? .zero : backoff.delay(beforeRetry: attempt, random: Double.random(in: 0...1))
            try await reconnecting(ended, wait)
            try await Task.sleep(for: wait)
            previous = ended
        }
    }

    /// Connections tried since the last that came up (the backoff's exponent), and whether any ever did.
    final class Attempts: Sendable {
        private let state = Mutex((failed: 0, everConnected: false))
        func connected() { state.withLock { $0 = (0, true) } }
        var everConnected: Bool { state.withLock { $0.everConnected } }
        /// This gap's attempt number (0 for the first since a connection came up).
        func next() -> Int { state.withLock { state in defer { state.failed += 1 }; return state.failed } }
    }
}
