/// How many terminal columns text takes, and text cut or wrapped to a number of columns.
///
/// A character is one column, an East Asian wide one or an emoji two, a combining mark or a
/// zero-width joiner none; brados's own style marks (``StyleMark``) take none and are kept
/// whole when text is cut. Text given here has its control characters made visible already
/// (``SafeText``): a `^[` counts two columns, as it is shown.
public enum TextWidth {
    /// The columns `text` takes on a terminal.
    public static func of(_ text: String) -> Int {
        var width = 0
        forEachScalar(text) { scalar in width += columns(scalar) } mark: { _ in }
        return width
    }

    /// `text` cut to at most `width` columns, its last column an ellipsis when it was cut;
    /// a style still open where it is cut is closed.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        var result = String.UnicodeScalarView()
        var used = 0
        var styled = false
        var done = false
        forEachScalar(text) { scalar in
            guard !done else { return }
            let size = columns(scalar)
            if used + size > width - 1 {
                done = true
                return
            }
            used += size
            result.append(scalar)
        } mark: { mark in
            guard !done else { return }
            result.append(contentsOf: mark.text.unicodeScalars)
            styled = mark.code != "0"
        }
        result.append("…")
        if styled { result.append(contentsOf: StyleMark.mark("0").unicodeScalars) }
        return String(result)
    }

    /// `text` wrapped at spaces into lines of at most `width` columns; its own line breaks
    /// are kept, and a line that fits is kept as it is (its runs of spaces too). A line that
    /// does not fit breaks at spaces, its later lines indented as far as it is (a list item,
    /// a quoted block). A word longer than a line is cut across lines, or with `cutLongWords`
    /// false left whole on a line of its own (a path or a URL a person copies).
    public static func wrap(_ text: String, width: Int, cutLongWords: Bool = true) -> [String] {
        guard width > 0 else { return [text] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard of(String(paragraph)) > width else {
                lines.append(String(paragraph))
                continue
            }
            let leading = paragraph.prefix { $0 == " " }
            let indent = leading.count < width / 2 ? String(leading) : ""
            var line = indent
            var lineWidth = indent.count
            var fresh = true
            // Each word with the spaces before it (kept inside a line, dropped at a break).
            var rest = paragraph.dropFirst(leading.count)
            while !rest.isEmpty {
                let gap = rest.prefix { $0 == " " }
                rest = rest.dropFirst(gap.count)
                let token = rest.prefix { $0 != " " }
                rest = rest.dropFirst(token.count)
                guard !token.isEmpty else { break }
                var word = String(token)
                var wordWidth = of(word)
                var space = fresh ? 0 : gap.count
                if !fresh, lineWidth + space + wordWidth > width {
                    lines.append(line)
                    line = indent
                    lineWidth = indent.count
                    space = 0
                }
                while cutLongWords, lineWidth + space + wordWidth > width {
                    // A word longer than a line: as much as fits, then the rest on the next.
                    let (head, tail) = split(word, at: width - lineWidth - space)
                    if tail.isEmpty { break } // one character wider than the line: it stays as it is
                    lines.append(line + String(repeating: " ", count: space) + head)
                    line = indent
                    lineWidth = indent.count
                    space = 0
                    word = tail
                    wordWidth = of(word)
                }
                line += String(repeating: " ", count: space) + word
                lineWidth += space + wordWidth
                fresh = false
            }
            lines.append(line)
        }
        return lines
    }

    /// A line of prose for a terminal `width` columns wide: wrapped at spaces, each line after
    /// the first under the first's text (past its leading spaces and a short lead-in such as
    /// `ok    ` or `label: `, kept as it is), long words left whole. A line that fits is
    /// returned as it is.
    public static func softWrap(_ line: String, width: Int) -> String {
        guard of(line) > width, width >= 20 else { return line }
        let leading = String(line.prefix { $0 == " " })
        var body = Substring(line.dropFirst(leading.count))
        // A lead-in: one short word (a status, a label) and the spaces after it, style marks
        // (which take no column) counted in with them.
        var lead = ""
        let scalars = Array(body.unicodeScalars)
        var index = 0, word = 0, spaces = 0
        var lastOfWord: Unicode.Scalar?
        func skipMarks() { while index < scalars.count, let (_, length) = StyleMark.parse(scalars, at: index) { index += length } }
        skipMarks()
        while index < scalars.count, scalars[index] != " " { lastOfWord = scalars[index]; index += 1; word += 1; skipMarks() }
        while index < scalars.count, scalars[index] == " " { index += 1; spaces += 1; skipMarks() }
        // Only a label (`label: `) or a word set apart by two spaces or more (`ok    `) is a
        // lead-in; the first word of a sentence is not.
        if (1...14).contains(word), index < scalars.count, of(leading) + word + spaces < width / 2,
           spaces >= 2 || (spaces == 1 && lastOfWord == ":") {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[..<index])
            lead = String(view)
            var rest = String.UnicodeScalarView()
            rest.append(contentsOf: scalars[index...])
            body = Substring(String(rest))
        }
        let hang = of(leading) + of(lead)
        let lines = wrap(String(body), width: max(10, width - hang), cutLongWords: false)
        guard lines.count > 1 else { return line }
        let indent = String(repeating: " ", count: hang)
        return ([leading + lead + lines[0]] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
    }

    /// The first `columns` columns of `text` and the rest.
    static func split(_ text: String, at columns: Int) -> (String, String) {
        var head = String.UnicodeScalarView(), tail = String.UnicodeScalarView()
        var used = 0
        forEachScalar(text) { scalar in
            let size = Self.columns(scalar)
            // At least one character moves, however narrow `columns` (a wide one in one column).
            if tail.isEmpty, used + size <= max(columns, 1) || head.isEmpty {
                head.append(scalar)
                used += size
            } else {
                tail.append(scalar)
            }
        } mark: { mark in
            if tail.isEmpty { head.append(contentsOf: mark.text.unicodeScalars) } else { tail.append(contentsOf: mark.text.unicodeScalars) }
        }
        return (String(head), String(tail))
    }

    /// Calls `scalar` for each character's scalar and `mark` for each style mark, in order.
    private static func forEachScalar(_ text: String, scalar: (Unicode.Scalar) -> Void, mark: ((text: String, code: String)) -> Void) {
        guard text.unicodeScalars.contains(StyleMark.open) else {
            for each in text.unicodeScalars { scalar(each) }
            return
        }
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            if scalars[index] == StyleMark.open, let (code, length) = StyleMark.parse(scalars, at: index) {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[index..<(index + length)])
                mark((String(view), code))
                index += length
            } else {
                scalar(scalars[index])
                index += 1
            }
        }
    }

    /// The columns one scalar takes.
    static func columns(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0xFE00...0xFE0F).contains(value) { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}
