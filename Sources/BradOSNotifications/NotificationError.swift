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
        case let .callFailed(name, _) where name.contains(".Spawn."):
            // The bus knows a service (dunst, mako…) but it could not start: most often there is no display to draw on.
            "No notification service could start on the session bus: one is installed, and it \(Self.spawnReason(name)) as the bus started it (it may need a desktop or a display)."
        case let .callFailed(name, message): "The notification service refused: \(name)\(message.isEmpty ? "" : ": \(message)")."
        case let .busFailed(detail): "The session bus failed: \(detail)."
        }
    }

    public var recovery: String? {
        "Notifications need a desktop session (DBUS_SESSION_BUS_ADDRESS) with a notification service (GNOME Shell, KDE Plasma, "
            + "dunst, mako); the watch goes on without them. Turn them off with `brados config set watch.notify false`."
    }

    public var kind: FailureKind { .general }

    /// What a `org.freedesktop.DBus.Error.Spawn.*` error name says happened to the service, in words.
    static func spawnReason(_ name: String) -> String {
        switch name.split(separator: ".").last.map(String.init) ?? "" {
        case "ChildSignaled": "was killed by a signal"
        case "ChildExited": "exited"
        case "ExecFailed": "could not be run"
        case "ServiceNotFound", "ServiceInvalid", "FileInvalid": "is not installed as the bus expects"
        case "NoMemory": "ran out of memory"
        default: "failed"
        }
    }
}
