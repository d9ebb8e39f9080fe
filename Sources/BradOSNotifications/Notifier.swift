import BradOSCore
import Foundation
import Synchronization

/// One desktop notification, as the freedesktop Notifications service takes it.
public struct DesktopNotification: Sendable, Equatable {
    public var replaces: UInt32
    public var icon: String
    public var summary: String
    public var body: String
    public var category: String
}

/// Shows desktop notifications.
public protocol NotificationSending: Sendable {
    /// Shows `notification` and returns its id (what a later one replaces).
    /// - Throws: ``NotificationError``.
    func send(_ notification: DesktopNotification) throws -> UInt32
    /// The notification service's name, asked when the watch starts (so a missing one is said
    /// then, not at the first news hours later).
    /// - Throws: ``NotificationError``.
    func serverName() throws -> String
}

/// ``NotificationSending`` over the session bus: `org.freedesktop.Notifications.Notify`, with
/// the app name `brados`, an icon name, the category and `desktop-entry` hints. One connection,
/// opened at the first notification and again after it fails.
public final class SessionBusNotifications: NotificationSending {
    private let environment: [String: String]
    private let connection = Mutex<SessionBus?>(nil)

    public init(environment: [String: String]) { self.environment = environment }

    /// The notification service's name and version (`GetServerInformation`), for `brados doctor`.
    /// - Throws: ``NotificationError``.
    public func serverName() throws -> String {
        try connection.withLock { bus in
            if bus == nil { bus = try SessionBus(address: try SessionBus.address(environment: environment)) }
            let reply = try bus!.call(destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                                      interface: "org.freedesktop.Notifications", member: "GetServerInformation", signature: "", body: [])
            return reply.string ?? "unnamed"
        }
    }

    public func send(_ notification: DesktopNotification) throws -> UInt32 {
        try connection.withLock { bus in
            if bus == nil { bus = try SessionBus(address: try SessionBus.address(environment: environment)) }
            do {
                let reply = try bus!.call(
                    destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                    interface: "org.freedesktop.Notifications", member: "Notify", signature: "susssasa{sv}i",
                    body: [.string("brados"), .uint32(notification.replaces), .string(notification.icon), .string(notification.summary),
                           .string(notification.body), .stringArray([]),
                           .hints([("category", .string(notification.category)), ("desktop-entry", .string("brados")), ("urgency", .byte(1))]),
                           .int32(-1)])
                return reply.uint32 ?? 0
            } catch NotificationError.busFailed(let detail) {
                bus = nil
                throw NotificationError.busFailed(detail)
            }
        }
    }
}

/// Drives a ``NotificationSchedule`` in time: takes news as the watch finds it and shows what is
/// due. When notifications cannot be shown (no bus, no service) it says so once through
/// `warn`, and keeps trying quietly (a desktop session may start later).
public actor Notifier {
    private var schedule: NotificationSchedule
    private let sender: any NotificationSending
    private let warn: @Sendable (String) -> Void
    private let started = ContinuousClock.now
    private var wake: Task<Void, Never>?
    private var wakeAt: Duration?
    private var warned = false

    public init(detail: NotificationDetail, sender: any NotificationSending, warn: @escaping @Sendable (String) -> Void) {
        schedule = NotificationSchedule(detail: detail)
        self.sender = sender
        self.warn = warn
    }

    private var now: Duration { ContinuousClock.now - started }

    /// Asks the service whether it is there, as the watch starts: when it is not, the one
    /// notice is said now (and not again at the first news).
    public func probe() {
        do { _ = try sender.serverName() } catch {
            if !warned { warn(error.summaryText + " The watch goes on without notifications.") }
            warned = true
        }
    }

    /// The notifications shown by ``alert(summary:body:)``, by summary (each replaces its own).
    private var alerts: [String: UInt32] = [:]

    /// A notification that is no domain's news (a session to sign in to again): shown at once,
    /// replacing its own earlier one. It holds no content, so every `notify.detail` shows it.
    public func alert(summary: String, body: String) {
        let notification = DesktopNotification(replaces: alerts[summary] ?? 0, icon: "dialog-warning", summary: summary, body: body,
                                               category: "x-brados.attention")
        do {
            alerts[summary] = try sender.send(notification)
            warned = false
        } catch {
            if !warned { warn(error.summaryText + " The watch goes on without notifications.") }
            warned = true
        }
    }

    /// Takes news; what is due is shown at its time.
    public func add(_ news: [News]) {
        guard !news.isEmpty else { return }
        let now = self.now
        for item in news { schedule.add(item, at: now) }
        wakeWhenDue()
    }

    private func wakeWhenDue() {
        guard let due = schedule.nextDue else { return }
        if let wakeAt, wakeAt <= due, wake != nil { return }
        wake?.cancel()
        wakeAt = due
        let delay = due - now
        wake = Task { [weak self] in
            if delay > .zero { try? await Task.sleep(for: delay) }
            guard !Task.isCancelled else { return }
            await self?.flush()
        }
    }

    private func flush() {
        wake = nil
        wakeAt = nil
        let now = self.now
        for outgoing in schedule.takeDue(at: now) {
            let words = schedule.detail.text(for: outgoing)
            let notification = DesktopNotification(replaces: outgoing.replaces, icon: outgoing.latest.icon, summary: words.summary,
                                                   body: words.body, category: outgoing.latest.category)
            do {
                let id = try sender.send(notification)
                schedule.shown(outgoing, id: id, at: now)
                warned = false
            } catch {
                if !warned { warn(error.summaryText + " The watch goes on without notifications.") }
                warned = true
            }
        }
        wakeWhenDue()
    }
}
