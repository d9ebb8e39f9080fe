import BradOSCore
import Foundation

/// When `sync --watch --notify` shows what, as a state machine of times (no clock, no bus: the
/// ``Notifier`` drives it, tests drive it step by step).
///
/// - News waits ``gather`` (so a burst that arrives together is one notification), and a domain
///   shows at most one notification every ``window``: what arrives meanwhile is counted and
///   shown when the window ends ("50 new messages").
/// - A notification replaces the previous one of its thread (a conversation: `replaces_id`)
///   instead of stacking, and while they follow each other within ``quiet`` its count goes on
///   from the shown one.
/// - At `notify.detail = none` every domain is one thread: "brados: 3 updates".
public struct NotificationSchedule: Sendable {
    /// One notification to show.
    public struct Outgoing: Sendable, Equatable {
        /// The newest news it tells of (its words come from it).
        public var latest: News
        /// How many news it tells of.
        public var count: Int
        /// The notification it replaces (0: none).
        public var replaces: UInt32
        /// The threads it speaks for: each takes its id once shown.
        public var threads: [String]
    }

    struct Shown {
        var id: UInt32
        var count: Int
        var at: Duration
    }

    struct Pending {
        var count: Int
        var latest: News
    }

    struct Channel {
        var pending: [String: Pending] = [:]
        var newest: String?
        var firstPendingAt: Duration?
        var lastSentAt: Duration?
    }

    public var gather: Duration = .milliseconds(100)
    public var window: Duration = .seconds(5)
    public var quiet: Duration = .seconds(60)
    public let detail: NotificationDetail
    var channels: [String: Channel] = [:]
    var shown: [String: Shown] = [:]

    public init(detail: NotificationDetail) { self.detail = detail }

    func channel(of news: News) -> String { detail == .none ? "all" : news.domain }
    func thread(of news: News) -> String { detail == .none ? "all" : news.domain + "/" + news.thread }

    /// Takes news arriving at `now`.
    public mutating func add(_ news: News, at now: Duration) {
        let thread = thread(of: news)
        var channel = channels[channel(of: news), default: Channel()]
        channel.pending[thread, default: Pending(count: 0, latest: news)].count += 1
        channel.pending[thread]!.latest = news
        channel.newest = thread
        channel.firstPendingAt = channel.firstPendingAt ?? now
        channels[self.channel(of: news)] = channel
    }

    /// When the next notification is due, if any news waits.
    public var nextDue: Duration? { channels.values.compactMap(due).min() }

    /// When a channel's waiting news is due: ``gather`` after the first, and ``window`` after
    /// the channel's last notification.
    func due(_ channel: Channel) -> Duration? {
        guard let first = channel.firstPendingAt else { return nil }
        return max(first + gather, channel.lastSentAt.map { $0 + window } ?? .zero)
    }

    /// The notifications due at `now`: one a channel at most (``window`` apart).
    public mutating func takeDue(at now: Duration) -> [Outgoing] {
        var outgoing: [Outgoing] = []
        for (name, var channel) in channels.sorted(by: { $0.key < $1.key }) {
            guard let due = due(channel), now >= due, let newest = channel.newest, let latest = channel.pending[newest]?.latest else { continue }
            let threads = channel.pending.keys.sorted()
            var count = channel.pending.values.reduce(0) { $0 + $1.count }
            let previous = shown[newest]
            // It replaces the newest thread's notification: what that one counted goes on in it.
            if let previous, now - previous.at < quiet { count += previous.count }
            outgoing.append(Outgoing(latest: latest, count: count, replaces: previous?.id ?? 0, threads: threads))
            channel.pending = [:]
            channel.newest = nil
            channel.firstPendingAt = nil
            channel.lastSentAt = now
            channels[name] = channel
        }
        return outgoing
    }

    /// Records that `outgoing` was shown with `id` at `now` (the threads it spoke for replace it next).
    public mutating func shown(_ outgoing: Outgoing, id: UInt32, at now: Duration) {
        for thread in outgoing.threads { shown[thread] = Shown(id: id, count: outgoing.count, at: now) }
    }
}
