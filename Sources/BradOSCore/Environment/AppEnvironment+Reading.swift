import BradOSStorage
import Foundation

extension AppEnvironment {
    /// Whether this command talks to a person: stdout is a terminal and the output is human
    /// (not `--json`). Decided here only: progress, early presentation and re-rendering of a
    /// refreshed copy follow it.
    public var isInteractive: Bool { io.isOutputTerminal && output.format == .human }

    /// The command's ``CacheReader``: interactive or script as ``isInteractive`` says, offline
    /// as `--offline` says, notices on stderr, background refreshes started by
    /// ``startInBackground(_:)``, waiting `refresh.wait` for the server first.
    public var reader: CacheReader {
        let env = self
        // A value the rule refuses is said once per command, however many reads; they go on without waiting.
        return CacheReader(mode: isInteractive ? .interactive : .script, offline: isOffline, io: io, now: now,
                           notice: { env.output.notice($0) }, startInBackground: { try env.startInBackground($0) }, wait: refreshWait(), clock: clock, logger: logger)
    }

    /// Starts `brados <command…>` as a detached background process for this command's profile
    /// and server (the one place that forwards them), its output discarded.
    /// - Parameter command: a command and its own arguments, `["visits", "revalidate"]`.
    /// - Throws: ``StorageError/io(operation:path:errno:)`` when the process cannot be started.
    public func startInBackground(_ command: [String]) throws {
        try DetachedProcess.spawn(arguments: backgroundArguments(command))
        logger.debug("started `brados \(command.joined(separator: " "))` in the background")
    }

    /// `command` with the global options a background process must share with this one.
    func backgroundArguments(_ command: [String]) -> [String] {
        var arguments = command + ["--profile", profile.name.rawValue]
        if let server = settings.flags.server { arguments += ["--server", server] }
        return arguments
    }
}
