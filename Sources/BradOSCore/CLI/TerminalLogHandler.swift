import Logging

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
        io.writeError("brados: \(event.level.rawValue): \(event.message)\(fields.isEmpty ? "" : " " + fields)\n")
    }
}
