import Foundation

/// A real Secret Service for a test: a private D-Bus session bus (`dbus-daemon`) with
/// GNOME Keyring on it (`gnome-keyring-daemon --unlock`, its keyring under the test's own
/// home), as a desktop session has. Both stop when the session is stopped or deinitialized.
public final class KeyringSession: @unchecked Sendable {
    /// `DBUS_SESSION_BUS_ADDRESS`, `HOME` and the XDG folders to run brados and `secret-tool` with.
    public let environment: [String: String]
    public let home: TemporaryDirectory
    private let bus: Process
    private var keyring: Process?
    private let password = "keyring-password"

    public init() throws {
        OwnThread.mayBlock("starting a keyring's session bus")
        home = TemporaryDirectory("keyring")
        let data = home.url.appendingPathComponent("data"), runtime = home.url.appendingPathComponent("run")
        for folder in [data, runtime] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        chmod(runtime.path, 0o700)
        let address = "unix:path=\(runtime.path)/bus"
        bus = Process()
        bus.executableURL = try SystemCommand.url("dbus-daemon")
        bus.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(address)"]
        bus.standardError = FileHandle.nullDevice
        try bus.run()
        environment = ["DBUS_SESSION_BUS_ADDRESS": address, "HOME": home.url.path, "XDG_DATA_HOME": data.path, "XDG_RUNTIME_DIR": runtime.path]
        let socket = runtime.appendingPathComponent("bus").path
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket) && Date() < deadline { usleep(20_000) }
        try startKeyring()
    }

    /// Starts GNOME Keyring in the foreground, replacing one that runs (one the bus started
    /// on demand, locked), and unlocks the login keyring with its password (as signing in to the
    /// desktop does); returns once it answers on the bus.
    public func startKeyring() throws {
        stopKeyring()
        let daemon = Process()
        daemon.executableURL = try SystemCommand.url("gnome-keyring-daemon")
        daemon.arguments = ["--replace", "--foreground", "--unlock", "--components=secrets"]
        daemon.environment = environment.merging(["PATH": "/usr/bin:/bin", "LC_ALL": "C"]) { $1 }
        let input = Pipe()
        daemon.standardInput = input
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        input.fileHandleForWriting.write(Data(password.utf8))
        try input.fileHandleForWriting.close()
        keyring = daemon
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let owner = try SystemCommand.run("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                            "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"],
                                              environment: environment)
            if owner.stdout.contains("boolean true") { return }
            usleep(50_000)
        }
        throw Failure(what: "gnome-keyring-daemon", result: BuiltProducts.Result(status: -1, stdout: "", stderr: "not on the bus after 15 s"))
    }

    /// Stops the GNOME Keyring this session started (its keyring stays on disk, locked).
    public func stopKeyring() {
        guard let daemon = keyring, daemon.isRunning else { return }
        // SIGKILL: GNOME Keyring in the foreground does not always leave on SIGTERM.
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
    }

    /// Unlocks it: a new daemon given the password (the keyring on disk is the same).
    public func unlock() throws { try startKeyring() }

    /// Locks the login keyring (as a screen lock does).
    public func lock() throws {
        let locked = try SystemCommand.run("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                                                         "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login"],
                                           environment: environment)
        guard locked.status == 0 else { throw Failure(what: "dbus-send Lock", result: locked) }
    }

    /// `secret-tool ARGUMENTS` in the session.
    public func secretTool(_ arguments: [String], stdin: String? = nil) throws -> BuiltProducts.Result {
        try SystemCommand.run("secret-tool", arguments, stdin: stdin, environment: environment)
    }

    /// Ends GNOME Keyring and the bus.
    public func stop() {
        stopKeyring()
        if bus.isRunning {
            kill(bus.processIdentifier, SIGKILL)
            bus.waitUntilExit()
        }
    }

    deinit { stop() }

    struct Failure: Error, CustomStringConvertible {
        let what: String
        let result: BuiltProducts.Result
        var description: String { "\(what) failed (\(result.status)): \(result.stderr)" }
    }
}
