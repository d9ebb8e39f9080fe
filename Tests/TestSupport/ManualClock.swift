import Foundation
import Synchronization

/// A clock whose sleeps return at once, advancing its time and recording each duration,
/// so retry and TTL tests never sleep.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state: Mutex<(now: Instant, sleeps: [Duration])>
    private let start: Date

    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Mutex((Instant(offset: .zero), []))
        self.start = start
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }
    /// Every sleep requested so far.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { value in
            value.sleeps.append(value.now.duration(to: deadline))
            if deadline > value.now { value.now = deadline }
        }
    }

    /// Moves time forward without a sleep.
    public func advance(by duration: Duration) { state.withLock { $0.now = $0.now.advanced(by: duration) } }

    /// The wall-clock date matching this clock's time.
    public var date: Date {
        let offset = now.offset.components
        return start.addingTimeInterval(TimeInterval(offset.seconds) + TimeInterval(offset.attoseconds) / 1e18)
    }

    /// A `now` closure for code that reads wall-clock time.
    public var dateProvider: @Sendable () -> Date { { [self] in self.date } }
}
