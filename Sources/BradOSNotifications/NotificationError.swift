import BradOSErrors

/// Why a desktop notification could not be shown. `sync --watch` says it once and goes on.
public enum NotificationError: BradOSError, Equatable {
    /// No session bus to reach (a server, an ssh session, a container).
    case noSessionBus(String)
    /// The bus is there but the call failed (no notification service: `ServiceUnknown`).
    case callFailed(name: String, message: String)
    /// The connection failed or the bus did not answer.
    case busFailed(String)

    public var summary: String {
        switch self {
        case let .noSessionBus(detail): "No desktop session bus to send notifications on (\(detail))."
        case let .callFailed(name, message) where name.hasSuffix(".ServiceUnknown") || name.hasSuffix(".NameHasNoOwner"):
            "No notification service on the session bus (\(message.isEmpty ? name : message))."
        case let .callFailed(name, message): "The notification service refused: \(name)\(message.isEmpty ? "" : ": \(message)")."
        case let .busFailed(detail): "The session bus failed: \(detail)."
        }
    }

    public var recovery: String? {
        "Notifications need a desktop session (DBUS_SESSION_BUS_ADDRESS) with a notification service (GNOME Shell, KDE Plasma, "
            + "dunst, mako); the watch goes on without them. Turn them off with `brados config set watch.notify false`."
    }

    public var kind: FailureKind { .general }
}
