import Foundation

/// A desktop's notification service for a test, not brados's own: a private D-Bus session bus
/// (`dbus-daemon`) with python-dbusmock's `notification_daemon` template on it, which answers
/// `org.freedesktop.Notifications` as GNOME Shell or dunst would and logs each call.
public final class NotificationSession: @unchecked Sendable {
    /// One `Notify` call the service received.
    public struct Call: Sendable, Equatable {
        public var at: Date
        public var appName: String
        public var replaces: Int
        public var icon: String
        public var summary: String
        public var body: String
        public var hints: String
    }

    /// `DBUS_SESSION_BUS_ADDRESS` to run brados with.
    public let environment: [String: String]
    public let folder: TemporaryDirectory
    private let bus: Process
    private var service: Process?
    private let log: URL

    /// - Parameters:
    ///   - withService: `false` for a bus with no notification service on it.
    ///   - crashingService: the bus knows a notification service it starts on demand, which
    ///     dies of a signal as it starts (dunst on a machine with no display).
    public init(withService: Bool = true, crashingService: Bool = false) throws {
        OwnThread.mayBlock("starting a notification service")
        folder = TemporaryDirectory("notifications")
        let address = "unix:path=\(folder.url.path)/bus"
        log = folder.url.appendingPathComponent("notify.log")
        bus = Process()
        bus.executableURL = try SystemCommand.url("dbus-daemon")
        bus.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(address)"]
        if crashingService {
            let services = folder.url.appendingPathComponent("services")
            try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
            try "[D-BUS Service]\nName=org.freedesktop.Notifications\nExec=/bin/sh -c 'kill -KILL $$'\n"
                .write(to: services.appendingPathComponent("org.freedesktop.Notifications.service"), atomically: true, encoding: .utf8)
            let config = folder.url.appendingPathComponent("bus.conf")
            try """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig><type>session</type><listen>\(address)</listen><servicedir>\(services.path)</servicedir>
                <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
                """.write(to: config, atomically: true, encoding: .utf8)
            // Started with every signal at its default: a test runner's ignored SIGCHLD, inherited,
            // would keep the bus from ever seeing its service die.
            bus.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            bus.arguments = ["--default-signal", try SystemCommand.url("dbus-daemon").path, "--config-file=\(config.path)", "--nofork", "--nopidfile"]
        }
        bus.standardError = FileHandle.nullDevice
        try bus.run()
        environment = ["DBUS_SESSION_BUS_ADDRESS": address]
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: folder.url.path + "/bus") && Date() < deadline { usleep(20_000) }
        guard withService, !crashingService else { return }
        // Debian's python3-dbusmock is for Debian's own Python.
        let mock = Process()
        mock.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        mock.arguments = ["-m", "dbusmock", "--session", "-t", "notification_daemon", "-l", log.path]
        mock.environment = ["DBUS_SESSION_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"]
        mock.standardOutput = FileHandle.nullDevice
        mock.standardError = FileHandle.nullDevice
        try mock.run()
        service = mock
        let answered = Date().addingTimeInterval(15)
        while Date() < answered {
            let owner = try SystemCommand.run("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                            "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.Notifications"],
                                              environment: environment)
            if owner.stdout.contains("boolean true") { return }
            usleep(50_000)
        }
        throw KeyringSession.Failure(what: "python3 -m dbusmock notification_daemon",
                                     result: BuiltProducts.Result(status: -1, stdout: "", stderr: "not on the bus after 15 s"))
    }

    /// The `Notify` calls so far, oldest first (from the service's log).
    public func calls() -> [Call] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        // `1795919689.575 Notify "brados" 0 "icon" "summary" "body" [] {"category": "im.received", ...} -1`; a body may hold newlines.
        let pattern = #"(\d+\.\d+) Notify "([^"]*)" (\d+) "([^"]*)" "([^"]*)" "([^"]*)" \[\] \{([^}]*)\} -?\d+"#
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators]) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).map { match in
            func group(_ index: Int) -> String { Range(match.range(at: index), in: text).map { String(text[$0]) } ?? "" }
            return Call(at: Date(timeIntervalSince1970: Double(group(1)) ?? 0), appName: group(2), replaces: Int(group(3)) ?? -1, icon: group(4),
                        summary: group(5), body: group(6), hints: group(7))
        }
    }

    public func stop() {
        for process in [service, bus].compactMap({ $0 }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
