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

    public init(io: any TerminalIO, format: OutputFormat) {
        self.io = io
        self.format = format
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

    /// Prints a value as one pretty-printed JSON document.
    /// - Throws: ``StorageError/coding(path:detail:)`` if it cannot be encoded.
    public func json<T: Encodable>(_ value: T) throws { try writeJSON(value, pretty: true) }

    /// Prints a value as one line of compact JSON (a stream of events: NDJSON).
    /// - Throws: ``StorageError/coding(path:detail:)`` if it cannot be encoded.
    public func jsonLine<T: Encodable>(_ value: T) throws { try writeJSON(value, pretty: false) }

    private func writeJSON<T: Encodable>(_ value: T, pretty: Bool) throws {
        do {
            let data = try JSONCoding.encode(value, pretty: pretty)
            io.write(SafeText.escapingJSON(String(decoding: data, as: UTF8.self)) + "\n")
        } catch {
            throw StorageError.coding(path: "<output>", detail: "\(error)")
        }
    }

    /// Prints a line (or lines) on stdout, control characters made visible (``SafeText``).
    public func line(_ text: String = "") { io.write(SafeText.visibleKeepingStyles(text, keepLines: true) + "\n") }

    /// Prints a table on stdout; each cell is one line, control characters made visible.
    public func table(_ table: Table) {
        var safe = table
        safe.rows = table.rows.map { $0.map { SafeText.visibleKeepingStyles($0, keepLines: false) } }
        io.write(safe.render(style: self))
    }

    /// Prints a notice for people on stderr (never mixed into data on stdout).
    public func notice(_ text: String) { StatusLine.shared.writeLine("brados: \(SafeText.visibleKeepingStyles(text, keepLines: true))\n", to: io) }

    public enum Style: String, Sendable { case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36" }

    /// Wraps `text` in an ANSI style when colors are on.
    public func styled(_ text: String, _ style: Style) -> String { Self.styled(text, style, colors: colors) }

    /// Wraps `text` in an ANSI style when `colors` (text drawn before it is written: a plot).
    public static func styled(_ text: String, _ style: Style, colors: Bool) -> String {
        colors ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }
}

/// A plain-text table with aligned columns (no header line when `headers` is empty).
public struct Table: Sendable {
    public var headers: [String]
    public var rows: [[String]]
    /// Columns aligned right (numbers).
    public var rightAligned: Set<Int>

    public init(headers: [String], rows: [[String]], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rows = rows
        self.rightAligned = rightAligned
    }

    public func render(style: Output? = nil) -> String {
        let columns = headers.isEmpty ? (rows.map(\.count).max() ?? 0) : headers.count
        var widths = headers.isEmpty ? Array(repeating: 0, count: columns) : headers.map(\.count)
        for row in rows {
            for (index, cell) in row.prefix(columns).enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        var lines = headers.isEmpty ? [] : [style.map { $0.styled(Self.format(headers, widths: widths, rightAligned: rightAligned), .bold) }
                                                ?? Self.format(headers, widths: widths, rightAligned: rightAligned)]
        lines += rows.map { Self.format($0, widths: widths, rightAligned: rightAligned) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line of cells padded to `widths` (a wider cell is not cut), trailing spaces trimmed.
    static func format(_ cells: [String], widths: [Int], rightAligned: Set<Int>) -> String {
        let columns = widths.count
        let line = cells.prefix(columns).enumerated().map { index, cell in
            let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
            if index == columns - 1 && !rightAligned.contains(index) { return cell }
            return rightAligned.contains(index) ? pad + cell : cell + pad
        }.joined(separator: "  ")
        // Trim trailing spaces by hand: a regular expression would load ICU on every command.
        var end = line.endIndex
        while end > line.startIndex, line[line.index(before: end)] == " " { end = line.index(before: end) }
        return String(line[..<end])
    }
}
