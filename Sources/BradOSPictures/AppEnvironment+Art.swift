import BradOSCore
import BradOSTerminal
import Foundation

extension AppEnvironment {
    /// How this command draws pictures: `--art` (when the command has it), else none in the
    /// accessible mode, else `display.art` / `BRADOS_ART`, else asking the terminal (``ArtDetector``).
    /// `askTerminal: false` for text drawings (a braille plot), which need no pixel protocol:
    /// the terminal is not asked, and the environment alone decides.
    /// - Throws: ``ConfigError/invalidValue(key:value:expected:)`` for a `display.art` that is not a mode.
    public func art(_ options: ArtOptions? = nil, askTerminal: Bool = true) throws -> ArtChoice {
        var detector = try artDetector(options)
        if !askTerminal { detector.query = nil }
        return detector.choose()
    }

    /// The detector ``art(_:askTerminal:)`` uses, for `doctor` to show its inputs.
    public func artDetector(_ options: ArtOptions? = nil) throws -> ArtDetector {
        var requested = ArtMode.auto
        var requestedBy = "auto"
        if let flag = options?.art {
            requested = flag
            requestedBy = "--art"
        } else if output.forms.accessible {
            // The accessible mode: each picture's text line instead (`--art` still draws one).
            requested = .none
            requestedBy = "the accessible mode (display.accessible)"
        } else {
            let setting = settings.resolve(ArtMode.configKey.name)
            if setting.source != .default, let value = setting.value {
                let name = setting.source == .environment ? (ArtMode.configKey.environmentVariable ?? ArtMode.configKey.name) : ArtMode.configKey.name
                guard let mode = ArtMode(rawValue: value) else {
                    throw ConfigError.invalidValue(key: name, value: value, expected: ArtMode.configKey.validate(value) ?? "a mode")
                }
                requested = mode
                requestedBy = name
            }
        }
        let io: any TerminalIO = self.io
        let ask: @Sendable (String, @Sendable (String) -> Bool, Duration) -> String? = { request, complete, timeout in
            io.queryTerminal(request, until: complete, timeout: timeout)
        }
        return ArtDetector(
            requested: requested, requestedBy: requestedBy, environment: io.environment, isTerminal: io.isOutputTerminal,
            json: output.format == .json, query: io.isInputTerminal || io.isOutputTerminal || io.isErrorTerminal ? ask : nil,
            cellPixels: io.cellPixels, tmuxAllowsPassthrough: { Self.tmuxAllowsPassthrough(environment: io.environment) })
    }

    /// tmux's `allow-passthrough` (`tmux show-options -gv`): `on` or `all` lets pictures
    /// through; `nil` when tmux cannot say (not found, or older than 3.3, which passes them).
    static func tmuxAllowsPassthrough(environment: [String: String]) -> Bool? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tmux", "show-options", "-gv", "allow-passthrough"]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        switch answer.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "on", "all": return true
        case "off": return false
        default: return nil
        }
    }

    /// The cells pictures may use: the terminal's size, else `COLUMNS` and `LINES`, else 80×24.
    public var artArea: (columns: Int, rows: Int) {
        if let size = io.terminalSize, size.columns > 0, size.rows > 0 { return (min(size.columns, 1000), min(size.rows, 1000)) }
        let environment = io.environment
        let columns = environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 80
        let rows = environment["LINES"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 24
        return (min(columns, 1000), min(rows, 1000))
    }
}
