/// A plain-text table with aligned columns (no header line when `headers` is empty), fitted
/// to a width when it has one: the widest columns are shortened first, each cut cell ending
/// in an ellipsis; ``keepWhole`` columns are never shortened; ``dropFirst`` columns are shown
/// whole or not at all, left out before any other column would be shortened past a
/// comfortable width.
public struct Table: Sendable {
    public var headers: [String]
    public var rows: [[String]]
    /// Columns aligned right (numbers).
    public var rightAligned: Set<Int>
    /// Columns never shortened (ids, keys, dates a person copies): the first column and the
    /// right-aligned ones by default.
    public var keepWhole: Set<Int>
    /// Columns left out, in this order, when the table does not fit otherwise (none by
    /// default); shown, they are whole.
    public var dropFirst: [Int]
    /// Whether the last column, when shortened, wraps at word boundaries onto lines of its own
    /// (prose: a meaning, a summary) instead of ending in an ellipsis: false by default.
    public var wrapLast: Bool

    public init(headers: [String], rows: [[String]], rightAligned: Set<Int> = [], keepWhole: Set<Int>? = nil, dropFirst: [Int] = [],
                wrapLast: Bool = false) {
        self.headers = headers
        self.rows = rows
        self.rightAligned = rightAligned
        self.keepWhole = keepWhole ?? rightAligned.union([0])
        self.dropFirst = dropFirst
        self.wrapLast = wrapLast
    }

    /// A shortened column keeps at least this many columns before a ``dropFirst`` column goes.
    static let comfortable = 16
    /// Two spaces between columns.
    static let gap = 2

    /// The table as lines, control characters in cells made visible (brados's style marks
    /// kept as marks: the caller resolves them, ``SafeText/resolvingStyles(_:)``).
    /// - Parameter width: the columns a line may take (`nil`: as wide as the cells).
    public func render(style: Output? = nil, width: Int? = nil) -> String {
        let columnCount = headers.isEmpty ? (rows.map(\.count).max() ?? 0) : headers.count
        let cells = rows.map { row in row.prefix(columnCount).map { SafeText.rendered($0, keepLines: false, resolvingStyles: false) } }
        var widths = headers.isEmpty ? Array(repeating: 0, count: columnCount) : headers.map(TextWidth.of)
        for row in cells {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], TextWidth.of(cell)) }
        }
        // Narrower than its columns fit (a 40-column terminal): each row a block of key and value lines.
        if let width, !headers.isEmpty, columnCount > 1,
           !Self.fits(widths: widths, into: width, headers: headers, keepWhole: keepWhole, dropFirst: dropFirst) {
            return blocks(cells, width: width, style: style)
        }
        let shown = width.map { Self.fit(widths: widths, into: $0, headers: headers, keepWhole: keepWhole, dropFirst: dropFirst) }
            ?? widths.map(Optional.some)
        let last = columnCount - 1
        let wraps = wrapLast && last >= 0 && !rightAligned.contains(last) && shown[last] != nil && shown[last] != widths[last]
        func line(_ row: [String]) -> String {
            var kept: [String] = [], keptWidths: [Int] = [], aligned: Set<Int> = []
            var continued: [String] = []
            for (index, cell) in row.enumerated() {
                guard let columnWidth = shown[index] else { continue }
                if rightAligned.contains(index) { aligned.insert(keptWidths.count) }
                if wraps, index == last {
                    let wrapped = TextWidth.wrap(cell, width: columnWidth)
                    kept.append(wrapped.first ?? "")
                    continued = Array(wrapped.dropFirst())
                } else {
                    kept.append(TextWidth.truncate(cell, to: columnWidth))
                }
                keptWidths.append(columnWidth)
            }
            let indent = String(repeating: " ", count: keptWidths.dropLast().reduce(0) { $0 + $1 + Self.gap })
            return ([Self.format(kept, widths: keptWidths, rightAligned: aligned)] + continued.map { indent + $0 }).joinedDirectly(separator: "\n")
        }
        var lines: [String] = []
        if !headers.isEmpty {
            let header = line(headers)
            lines.append(style.map { $0.styled(header, .bold) } ?? header)
        }
        lines += cells.map(line)
        return lines.joinedDirectly(separator: "\n") + "\n"
    }

    /// Whether the columns fit in `total` with every shortened one at least ``comfortable``
    /// wide (its header at least), once the ``dropFirst`` columns are left out.
    static func fits(widths: [Int], into total: Int, headers: [String], keepWhole: Set<Int>, dropFirst: [Int]) -> Bool {
        let kept = widths.indices.filter { !dropFirst.contains($0) }
        let least = kept.reduce(0) { sum, index in
            let header = headers.indices.contains(index) ? TextWidth.of(headers[index]) : 1
            return sum + (keepWhole.contains(index) ? widths[index] : min(widths[index], max(comfortable, header)))
        }
        return least + gap * max(0, kept.count - 1) <= total
    }

    /// Each row as a block of `KEY  value` lines (as gh prints wide records), a blank line
    /// between rows; a value wraps under itself, an empty one is left out.
    func blocks(_ cells: [[String]], width: Int, style: Output?) -> String {
        let keyWidth = headers.map(TextWidth.of).max() ?? 0
        let valueWidth = max(10, width - keyWidth - Self.gap)
        let indent = String(repeating: " ", count: keyWidth + Self.gap)
        var blocks: [String] = []
        for row in cells {
            var lines: [String] = []
            for (index, header) in headers.enumerated() where index < row.count && !row[index].isEmpty {
                let key = header + String(repeating: " ", count: keyWidth - TextWidth.of(header)) + String(repeating: " ", count: Self.gap)
                let wrapped = TextWidth.wrap(row[index], width: valueWidth)
                lines.append((style.map { $0.styled(key, .bold) } ?? key) + (wrapped.first ?? ""))
                lines += wrapped.dropFirst().map { indent + $0 }
            }
            blocks.append(lines.joinedDirectly(separator: "\n"))
        }
        return blocks.joinedDirectly(separator: "\n\n") + (blocks.isEmpty ? "" : "\n")
    }

    /// The width each column is shown at (`nil`: left out) for lines of at most `total` columns.
    static func fit(widths: [Int], into total: Int, headers: [String], keepWhole: Set<Int>, dropFirst: [Int]) -> [Int?] {
        var shown = widths.map(Optional.some)
        func used(_ shown: [Int?]) -> Int {
            let kept = shown.compactMap { $0 }
            return kept.reduce(0, +) + Self.gap * max(0, kept.count - 1)
        }
        guard used(shown) > total else { return shown }
        func floor(_ index: Int, _ least: Int) -> Int {
            min(widths[index], max(least, headers.indices.contains(index) ? TextWidth.of(headers[index]) : 1))
        }
        /// The shortenable columns cut to one cap, the largest that fits, none below `least`.
        func shortened(_ shown: [Int?], least: Int) -> [Int?] {
            let flexible = shown.indices.filter { shown[$0] != nil && !keepWhole.contains($0) && !dropFirst.contains($0) }
            guard !flexible.isEmpty else { return shown }
            let fixed = used(shown) - flexible.reduce(0) { $0 + (shown[$1] ?? 0) }
            let room = total - fixed
            var cap = flexible.map { widths[$0] }.max() ?? 0
            while cap > 1, flexible.reduce(0, { $0 + max(floor($1, least), min(widths[$1], cap)) }) > room { cap -= 1 }
            var result = shown
            for index in flexible { result[index] = max(floor(index, least), min(widths[index], cap)) }
            return result
        }
        var candidate = shortened(shown, least: Self.comfortable)
        for index in dropFirst where used(candidate) > total && widths.indices.contains(index) {
            shown[index] = nil
            candidate = shortened(shown, least: Self.comfortable)
        }
        if used(candidate) > total { candidate = shortened(shown, least: 4) }
        return candidate
    }

    /// One line of cells padded to `widths` (a wider cell is not cut), trailing spaces trimmed.
    static func format(_ cells: [String], widths: [Int], rightAligned: Set<Int>) -> String {
        let columns = widths.count
        let line = cells.prefix(columns).enumerated().map { index, cell in
            let pad = String(repeating: " ", count: max(0, widths[index] - TextWidth.of(cell)))
            if index == columns - 1 && !rightAligned.contains(index) { return cell }
            return rightAligned.contains(index) ? pad + cell : cell + pad
        }.joinedDirectly(separator: "  ")
        // Trim trailing spaces by hand: a regular expression would load ICU on every command.
        var end = line.endIndex
        while end > line.startIndex, line[line.index(before: end)] == " " { end = line.index(before: end) }
        return String(line[..<end])
    }
}

extension Array where Element == String {
    /// `joined(separator:)` for the output a read prints: the same text, made by a loop the
    /// compiler specializes. The standard library's generic join looks up its collection's
    /// associated types at run time, which costs a process's first join a scan of every
    /// protocol-conformance record in the binary (bench/RESULTS.md, start-up).
    public func joinedDirectly(separator: String) -> String {
        guard var text = first else { return "" }
        text.reserveCapacity(reduce(0) { $0 + $1.utf8.count } + separator.utf8.count * (count - 1))
        for part in dropFirst() {
            text += separator
            text += part
        }
        return text
    }
}
