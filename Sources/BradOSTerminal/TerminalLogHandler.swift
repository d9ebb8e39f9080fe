import Foundation
import Logging
import Synchronization

/// How log lines look on stderr (`--log-format`, `BRADOS_LOG_FORMAT`, `log.format`).
public enum LogFormat: String, Sendable, CaseIterable {
    /// `brados: info: message key=value`, for a person.
    case text
    /// One JSON object a line (`time`, `level`, `label`, `message`, then each field), for
    /// journald and `jq`.
    case json
}

/// Points swift-log's default at ``TerminalLogHandler`` once per process, so every
/// `Logger(label:)` — in plugins too — writes to stderr at the level of `--verbose`/`BRADOS_LOG`.
public enum LogBootstrap {
    private static let done = Mutex(false)
    /// A level that replaces every handler's own for the rest of the process (``narrow(to:)``).
    static let override = Mutex<Logger.Level?>(nil)

    /// Bootstraps the logging system the first time it is called; later calls do nothing.
    public static func installOnce(io: any TerminalIO, level: Logger.Level, format: LogFormat = .text) {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { label in TerminalLogHandler(io: io, level: level, format: format, label: label) }
    }

    /// Makes every log handler of the process log at `level` from now on: `sync --watch
    /// --verbose` says what each domain did (the operation lines, at info) without the debug
    /// log that `--verbose` means elsewhere.
    public static func narrow(to level: Logger.Level) {
        override.withLock { $0 = level }
    }
}

/// swift-log handler that writes `brados: debug: message key=value` lines (or JSON lines,
/// ``LogFormat/json``) to stderr through ``TerminalIO``. Credentials are never passed to
/// loggers, by convention and test, and no line carries text a server sent
/// (``BradOSError/logSummary``).
public struct TerminalLogHandler: LogHandler {
    private var ownLevel: Logger.Level
    public var logLevel: Logger.Level {
        get { LogBootstrap.override.withLock { $0 } ?? ownLevel }
        set { ownLevel = newValue }
    }
    public var metadata: Logger.Metadata = [:]
    let io: any TerminalIO
    let format: LogFormat
    /// The logger's label (`brados.library`), in JSON lines.
    let label: String

    public init(io: any TerminalIO, level: Logger.Level, format: LogFormat = .text, label: String = "brados") {
        self.io = io
        ownLevel = level
        self.format = format
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        switch format {
        case .text:
            let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let line = SafeText.visible("brados: \(event.level.rawValue): \(event.message)\(fields.isEmpty ? "" : " " + fields)")
            StatusLine.shared.writeLine((io.isErrorJournal ? Self.priority(event.level) : "") + line + "\n", to: io)
        case .json:
            StatusLine.shared.writeLine(Self.jsonLine(level: event.level, label: label, message: "\(event.message)", fields: merged) + "\n", to: io)
        }
    }

    /// The syslog priority journald reads from a line's start (`sd-daemon(3)`): `<7>` debug … `<2>` critical.
    static func priority(_ level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "<7>"
        case .info: "<6>"
        case .notice: "<5>"
        case .warning: "<4>"
        case .error: "<3>"
        case .critical: "<2>"
        }
    }

    /// One JSON object: `time` (ISO 8601, UTC, milliseconds), `level`, `label`, `message`, then
    /// each field; numbers and booleans given as such stay numbers and booleans.
    static func jsonLine(level: Logger.Level, label: String, message: String, fields: Logger.Metadata, now: Date = Date()) -> String {
        var object: [String: Any] = [:]
        for (key, value) in fields { object[key] = Self.json(value) }
        object["time"] = now.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        object["level"] = level.rawValue
        object["label"] = label
        object["message"] = message
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return #"{"level":"error","message":"a log line could not be written as JSON"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case let .string(text): return text
        case let .stringConvertible(convertible):
            switch convertible {
            case let bool as Bool: return bool
            case let int as Int: return int
            case let double as Double: return double.isFinite ? double : "\(double)"
            default: return convertible.description
            }
        case let .array(values): return values.map(json)
        case let .dictionary(values): return values.mapValues(json)
        }
    }
}
