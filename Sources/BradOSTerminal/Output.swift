import Foundation

/// Whether a command prints for people or for programs.
public enum OutputFormat: Sendable, Equatable {
    case human, json
}

/// Renders command results: JSON documents, tables, lines, and notices on stderr.
/// Colors only on a terminal, never with `NO_COLOR`, `CLICOLOR=0` or `TERM=dumb`
/// (`CLICOLOR_FORCE=1` forces them).
public struct Output: Sendable {
    public let io: any TerminalIO
    public let format: OutputFormat
    public let colors: Bool
    /// The forms quantities, times and weeks are written in (`units`, `display.clock`, `display.week-start`).
    public let forms: DisplayForms

    public init(io: any TerminalIO, format: OutputFormat, forms: DisplayForms = .standard) {
        self.io = io
        self.format = format
        self.forms = forms
        colors = Self.colorsEnabled(io: io)
    }

    package static func colorsEnabled(io: any TerminalIO) -> Bool {
        colorsEnabled(environment: io.environment, isTerminal: io.isOutputTerminal)
    }

    /// Whether colors are on for output to a terminal or not (`isTerminal`) in `environment`:
    /// `CLICOLOR_FORCE` forces them, `NO_COLOR`, `CLICOLOR=0` and `TERM=dumb` turn them off.
    package static func colorsEnabled(environment env: [String: String], isTerminal: Bool) -> Bool {
        if let force = env["CLICOLOR_FORCE"], !force.isEmpty, force != "0" { return true }
        if let noColor = env["NO_COLOR"], !noColor.isEmpty { return false }
        if env["CLICOLOR"] == "0" || env["TERM"] == "dumb" { return false }
        return isTerminal
    }

    /// This output on stderr: a command whose stdout carries data (an archive) reports there.
    public var onStandardError: Output { Output(io: StandardErrorIO(io), format: format, forms: forms) }

    /// Prints a value as one pretty-printed JSON document.
    /// - Throws: ``OutputError/unencodable(detail:)`` if it cannot be encoded.
    public func json<T: Encodable>(_ value: T) throws { try writeJSON(value, pretty: true) }

    /// Prints a value as one line of compact JSON (a stream of events: NDJSON).
    /// - Throws: ``OutputError/unencodable(detail:)`` if it cannot be encoded.
    public func jsonLine<T: Encodable>(_ value: T) throws { try writeJSON(value, pretty: false) }

    private func writeJSON<T: Encodable>(_ value: T, pretty: Bool) throws {
        do {
            let data = try JSONCoding.encode(value, pretty: pretty)
            io.write(SafeText.escapingJSON(String(decoding: data, as: UTF8.self)) + "\n")
        } catch {
            throw OutputError.unencodable(detail: "\(error)")
        }
    }

    /// Prints a line (or lines) on stdout, control characters made visible (``SafeText``); on
    /// a terminal, a line wider than it wraps at spaces under its own text (``TextWidth/softWrap(_:width:)``).
    public func line(_ text: String = "") {
        let text = spoken(text)
        guard let width else { return io.write(SafeText.rendered(text, keepLines: true) + "\n") }
        let safe = SafeText.rendered(text, keepLines: true, resolvingStyles: false)
        let wrapped = safe.split(separator: "\n", omittingEmptySubsequences: false).map { TextWidth.softWrap(String($0), width: width) }
        io.write(SafeText.resolvingStyles(wrapped.joined(separator: "\n")) + "\n")
    }

    /// Prints text that holds pictures (their escape sequences go to the terminal as they
    /// are): every part of it from elsewhere must have been made ``SafeText/visible(_:keepLines:)``.
    public func picture(_ text: String) { io.write(SafeText.resolvingStyles(text)) }

    /// Prints a table on stdout; each cell is one line, control characters made visible,
    /// the whole fitted to the terminal's width (``Table/render(style:width:)``) when stdout is one.
    public func table(_ table: Table) {
        var table = table
        if forms.accessible {
            table.headers = table.headers.map(spoken)
            table.rows = table.rows.map { $0.map(spoken) }
        }
        io.write(SafeText.resolvingStyles(table.render(style: self, width: width)))
    }

    /// `text` as a screen reader should say it, in the accessible mode (as it is otherwise):
    /// words for the symbols brados writes — ≈ "about", → "to", · and • a comma, × "times",
    /// ± "plus or minus", ✓ "ok", ✗ "failed" — and nothing drawn for its sake alone.
    public func spoken(_ text: String) -> String { forms.accessible ? Self.spoken(text) : text }

    static let symbolWords: [(String, String)] = [
        (" · ", ", "), (" • ", ", "), ("·", ", "), (" → ", " to "), ("→", " to "), ("≈ ", "about "), ("≈", "about "),
        ("±", "plus or minus "), ("×", " times "), ("✓", "ok"), ("✗", "failed"), ("…", "..."), ("−", "minus "),
    ]

    static func spoken(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value >= 0x80 }) else { return text }
        var result = text
        for (symbol, words) in symbolWords where result.contains(symbol) { result = result.replacingOccurrences(of: symbol, with: words) }
        return result
    }

    /// The columns a line may take: the terminal's when stdout is one (human output), else none.
    public var width: Int? {
        guard format == .human, io.isOutputTerminal, let columns = io.terminalSize?.columns, columns > 0 else { return nil }
        return columns
    }

    /// Prints a notice for people on stderr (never mixed into data on stdout).
    public func notice(_ text: String) {
        let text = spoken(text)
        // In the journal a notice is one entry: its lines are one, at priority notice (<5>).
        guard io.isErrorJournal else {
            // On a terminal, wrapped at its width under its own text (after `brados: `).
            let safe = SafeText.rendered("brados: " + text, keepLines: true, resolvingStyles: false)
            let lines = io.errorColumns.map { width in
                safe.split(separator: "\n", omittingEmptySubsequences: false).map { TextWidth.softWrap(String($0), width: width) }.joined(separator: "\n")
            } ?? safe
            return StatusLine.shared.writeLine(SafeText.resolvingStyles(lines) + "\n", to: io)
        }
        StatusLine.shared.writeLine("<5>brados: \(SafeText.visible(text.replacingOccurrences(of: "\n", with: " ")))\n", to: io)
    }

    public enum Style: String, Sendable { case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36" }

    /// Wraps `text` in a style when colors are on: a ``StyleMark`` that becomes the terminal's
    /// escape sequence when the text is printed (``line(_:)``, ``table(_:)``, ``notice(_:)``).
    public func styled(_ text: String, _ style: Style) -> String { Self.styled(text, style, colors: colors) }

    /// Wraps `text` in a style when `colors` (text drawn before it is written: a plot).
    public static func styled(_ text: String, _ style: Style, colors: Bool) -> String {
        colors ? StyleMark.mark(style.rawValue) + text + StyleMark.mark("0") : text
    }
}
