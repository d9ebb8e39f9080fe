import Foundation
import Synchronization

/// A sliding-window rate limit per client: at most `limit` requests in any `window`. A
/// request over it is refused with how long until the oldest one in the window leaves it
/// (the `Retry-After` to send), so a client that waits that long gets through. Time is
/// injected (`now`), so tests never wait. Thread-safe.
final class RateLimiter: Sendable {
    let limit: Int
    let window: TimeInterval
    let now: @Sendable () -> Date
    /// Each client's requests in the window, oldest first.
    private let requests = Mutex<[String: [Date]]>([:])

    /// - Parameters:
    ///   - limit: requests allowed in a window; 0 turns the limit off.
    ///   - window: its length in seconds.
    init(limit: Int, window: TimeInterval, now: @escaping @Sendable () -> Date = { Date() }) {
        self.limit = limit
        self.window = window
        self.now = now
    }

    /// Counts a request of `client`.
    /// - Returns: `nil` when it is allowed; else the whole seconds to wait (at least 1).
    func admit(_ client: String) -> Int? {
        guard limit > 0 else { return nil }
        let now = now()
        return requests.withLock { requests in
            var recent = (requests[client] ?? []).filter { now.timeIntervalSince($0) < window }
            defer {
                requests[client] = recent.isEmpty ? nil : recent
                // Forget clients whose window has passed, so the table never grows without end.
                if requests.count > 10_000 { requests = requests.filter { $0.value.contains { now.timeIntervalSince($0) < window } } }
            }
            guard recent.count >= limit else {
                recent.append(now)
                return nil
            }
            let wait = recent[recent.count - limit].addingTimeInterval(window).timeIntervalSince(now)
            return max(1, Int(wait.rounded(.up)))
        }
    }
}
