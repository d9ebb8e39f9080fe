import BradOSCore
import Foundation

/// When `sync --watch --notify` shows what, as a state machine of times (no clock, no bus: the
/// ``Notifier`` drives it, tests drive it step by step).
///
/// - News waits ``gather`` (so a burst that arrives together is one notification), and a domain
///   shows at most one notification every ``window``: what arrives meanwhile is counted and
///   shown when the window ends ("50 new messages").
/// - Each thread (a conversation) has its own notification, titled by it, which replaces its
///   own earlier one instead of stacking; while its news follow each other within ``quiet``
///   its count goes on ("3 new messages").
/// - News of several threads due at once are one notification of their own ("3 new messages
///   in 2 conversations"), never shown under one thread's title and never replacing a thread's
///   notification: each thread's stays on screen until its own next one replaces it.
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
        /// Whose notification it is: one thread's (`coach/ID`), or a domain's burst across threads (`coach/*`).
        public var key: String
        /// For a burst across threads: each thread's newest news and how many it had, newest first.
        public var threads: [(latest: News, count: Int)]

        public static func == (lhs: Outgoing, rhs: Outgoing) -> Bool {
            lhs.latest == rhs.latest && lhs.count == rhs.count && lhs.replaces == rhs.replaces && lhs.key == rhs.key
                && lhs.threads.map(\.count) == rhs.threads.map(\.count) && lhs.threads.map(\.latest) == rhs.threads.map(\.latest)
        }

        /// Whether it tells of several threads at once.
        public var isAcrossThreads: Bool { !threads.isEmpty }
    }

    /// A notification on screen: its id, how many it counts, when it was last shown.
    struct Shown {
        var id: UInt32
        var count: Int
        var at: Duration
        /// A burst's threads so far (its conversations count on too).
        var threads: [String: (latest: News, count: Int)] = [:]
    }

    struct Pending {
        var count: Int
        var latest: News
        var order: Int
    }

    struct Channel {
        var pending: [String: Pending] = [:]
        var firstPendingAt: Duration?
        var lastSentAt: Duration?
    }

    public var gather: Duration = .milliseconds(100)
    public var window: Duration = .seconds(5)
    public var quiet: Duration = .seconds(60)
    public let detail: NotificationDetail
    var channels: [String: Channel] = [:]
    var shown: [String: Shown] = [:]
    private var arrivals = 0

    public init(detail: NotificationDetail) { self.detail = detail }

    func channel(of news: News) -> String { detail == .none ? "all" : news.domain }
    func thread(of news: News) -> String { detail == .none ? "all" : news.domain + "/" + news.thread }

    /// Takes news arriving at `now`.
    public mutating func add(_ news: News, at now: Duration) {
        let thread = thread(of: news)
        arrivals += 1
        var channel = channels[channel(of: news), default: Channel()]
        channel.pending[thread, default: Pending(count: 0, latest: news, order: arrivals)].count += 1
        channel.pending[thread]!.latest = news
        channel.pending[thread]!.order = arrivals
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
            guard let due = due(channel), now >= due, !channel.pending.isEmpty else { continue }
            let waiting = channel.pending.sorted { $0.value.order > $1.value.order }
            // Each thread counts on what it had shown within the quiet time, a burst's included.
            var counts: [String: Int] = [:]
            for (thread, pending) in waiting {
                let previous = shown[thread].flatMap { now - $0.at < quiet ? $0.count : nil } ?? 0
                counts[thread] = previous + pending.count
            }
            if waiting.count == 1, let (thread, pending) = waiting.first {
                outgoing.append(Outgoing(latest: pending.latest, count: counts[thread]!, replaces: shown[thread]?.id ?? 0, key: thread, threads: []))
            } else {
                let key = name + "/*"
                var threads = shown[key].flatMap { now - $0.at < quiet ? $0.threads : nil } ?? [:]
                for (thread, pending) in waiting {
                    threads[thread] = (pending.latest, (threads[thread]?.count ?? 0) + pending.count)
                }
                let total = threads.values.reduce(0) { $0 + $1.count }
                let listed = threads.values.sorted { ($0.count, $0.latest.threadTitle ?? "") > ($1.count, $1.latest.threadTitle ?? "") }
                outgoing.append(Outgoing(latest: waiting[0].value.latest, count: total, replaces: shown[key]?.id ?? 0, key: key, threads: listed))
                shown[key, default: Shown(id: 0, count: 0, at: now)].threads = threads
            }
            // The threads' own counts go on, shown or told within a burst.
            for (thread, count) in counts where waiting.count > 1 {
                shown[thread] = Shown(id: shown[thread]?.id ?? 0, count: count, at: now)
            }
            channel.pending = [:]
            channel.firstPendingAt = nil
            channel.lastSentAt = now
            channels[name] = channel
        }
        return outgoing
    }

    /// Records that `outgoing` was shown with `id` at `now` (what its key shows next replaces it).
    public mutating func shown(_ outgoing: Outgoing, id: UInt32, at now: Duration) {
        let threads = shown[outgoing.key]?.threads ?? [:]
        shown[outgoing.key] = Shown(id: id, count: outgoing.count, at: now, threads: outgoing.isAcrossThreads ? threads : [:])
    }
}
