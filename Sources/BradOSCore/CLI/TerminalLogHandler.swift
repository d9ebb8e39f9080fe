import Logging
import Synchronization

/// Points swift-log's default at ``TerminalLogHandler`` once per process, so every
/// `Logger(label:)` — in plugins too — writes to stderr at the level of `--verbose`/`BRADOS_LOG`.
public enum LogBootstrap {
    private static let done = Mutex(false)

    /// Bootstraps the logging system the first time it is called; later calls do nothing.
    public static func installOnce(io: any TerminalIO, level: Logger.Level) {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { _ in TerminalLogHandler(io: io, level: level) }
    }
}

/// swift-log handler that writes `brados: debug: message key=value` lines to stderr
/// through ``TerminalIO``. Credentials are never passed to loggers, by convention and test.
public struct TerminalLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    let io: any TerminalIO

    public init(io: any TerminalIO, level: Logger.Level) {
        self.io = io
        logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        StatusLine.shared.writeLine(SafeText.visible("brados: \(event.level.rawValue): \(event.message)\(fields.isEmpty ? "" : " " + fields)") + "\n", to: io)
    }
}
