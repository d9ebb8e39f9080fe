/// How many terminal columns text takes, and text cut or wrapped to a number of columns, as
/// terminals draw it: by grapheme cluster (what a reader sees as one character).
///
/// A cluster takes the columns of its first character — two for East Asian Wide and Fullwidth
/// ones (UAX #11) and emoji shown as emoji, none for combining marks and format characters —
/// and a spacing mark after it one more. A sequence drawn as one emoji is two: a ZWJ sequence
/// (👨‍👩‍👧‍👦), a flag (two regional indicators), a keycap, an emoji with VS16 (☺️), an emoji with
/// a skin tone; VS15 asks for text presentation, one column. Text is cut and wrapped only
/// between clusters: never a dangling joiner or half a flag. brados's own style marks
/// (``StyleMark``) take none and are kept whole. Text given here has its control characters
/// made visible already (``SafeText``): a `^[` counts two columns, as it is shown.
///
/// Checked against Python's `wcwidth` over Unicode's emoji-test.txt and EastAsianWidth.txt
/// (TextWidthConformanceTests).
public enum TextWidth {
    /// The columns `text` takes on a terminal.
    public static func of(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
        var width = 0
        forEachCluster(text) { cluster in width += columns(cluster) } mark: { _ in }
        return width
    }

    /// `text` cut to at most `width` columns, its last column an ellipsis when it was cut;
    /// a style still open where it is cut is closed.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        var result = ""
        var used = 0
        var styled = false
        var done = false
        forEachCluster(text) { cluster in
            guard !done else { return }
            let size = columns(cluster)
            if used + size > width - 1 {
                done = true
                return
            }
            used += size
            result.append(cluster)
        } mark: { mark in
            guard !done else { return }
            result += mark.text
            styled = mark.code != "0"
        }
        result = SafeText.closingIsolates(result) + "…"
        if styled { result += StyleMark.mark("0") }
        return result
    }

    /// `text` wrapped into lines of at most `width` columns; its own line breaks are kept, and
    /// a line that fits is kept as it is (its runs of spaces too). A line that does not fit
    /// breaks at spaces, and between the characters of Chinese, Japanese and Korean text
    /// (``pieces(_:)``: never before 、。）」 nor after （「), its later lines indented as far as
    /// it is (a list item, a quoted block). A word longer than a line is cut across lines, or with `cutLongWords`
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
            for (gap, piece) in pieces(paragraph.dropFirst(leading.count)) {
                var word = piece
                var wordWidth = of(word)
                var space = fresh ? 0 : gap
                if !fresh, lineWidth + space + wordWidth > width {
                    lines.append(SafeText.closingIsolates(line))
                    line = indent
                    lineWidth = indent.count
                    space = 0
                }
                while cutLongWords, lineWidth + space + wordWidth > width {
                    // A word longer than a line: as much as fits, then the rest on the next.
                    let (head, tail) = split(word, at: width - lineWidth - space)
                    if tail.isEmpty { break } // one character wider than the line: it stays as it is
                    lines.append(SafeText.closingIsolates(line + String(repeating: " ", count: space) + head))
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
            lines.append(SafeText.closingIsolates(line))
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

    /// The pieces of a line without line breaks, each with the spaces before it: a line may
    /// break before a piece, never inside one. Spaces separate pieces, and so does the point
    /// between two clusters when either is wide (ideographs, kana, Hangul, emoji), following the
    /// basic kinsoku rule of UAX #14: never before a closing mark, a full stop, `?`, `!` or a
    /// non-starter (、。，．？！）」』ー), never after an opening one (（「『), spaces between
    /// them or not (a non-starter after spaces may start a line, unless a closing bracket
    /// precedes the spaces). Checked against Unicode's LineBreakTest.txt (TextWidthConformanceTests).
    static func pieces(_ paragraph: Substring) -> [(gap: Int, text: String)] {
        var result: [(gap: Int, text: String)] = []
        var rest = paragraph
        while !rest.isEmpty {
            let gap = rest.prefix { $0 == " " }
            rest = rest.dropFirst(gap.count)
            let token = rest.prefix { $0 != " " }
            rest = rest.dropFirst(token.count)
            guard !token.isEmpty else { break }
            var spaces = gap.count
            for piece in breakablePieces(String(token)) {
                if spaces > 0, let last = result.last, joinsAcrossSpaces(last.text, piece) {
                    result[result.count - 1].text += String(repeating: " ", count: spaces) + piece
                } else {
                    result.append((spaces, piece))
                }
                spaces = 0
            }
        }
        return result
    }

    /// Where a line may start inside `text` (no line breaks in it), as offsets in clusters:
    /// ``pieces(_:)``'s boundaries (after leading spaces too).
    package static func breakOpportunities(_ text: String) -> [Int] {
        var offsets: [Int] = []
        var offset = 0
        for (index, piece) in pieces(Substring(text)).enumerated() {
            offset += piece.gap
            // After leading spaces, as after any (never before a closing mark).
            if index > 0 || (offset > 0 && !joinsAcrossSpaces("", piece.text)) { offsets.append(offset) }
            offset += piece.text.count
        }
        return offsets
    }

    /// `word` (no spaces) cut where a line may break inside it: between clusters when either is wide.
    static func breakablePieces(_ word: String) -> [String] {
        guard !word.utf8.allSatisfy({ $0 < 0x80 }) else { return [word] }
        var pieces: [String] = []
        var current = ""
        var previous: Character?
        forEachCluster(word) { cluster in
            if let previous, breaks(between: previous, and: cluster) {
                pieces.append(current)
                current = ""
            }
            current.append(cluster)
            previous = cluster
        } mark: { mark in current += mark.text }
        pieces.append(current)
        return pieces
    }

    /// Whether a line may break between two adjacent clusters (no space between them).
    static func breaks(between previous: Character, and next: Character) -> Bool {
        guard let before = previous.unicodeScalars.first, let after = next.unicodeScalars.first else { return false }
        guard columns(previous) == 2 || columns(next) == 2 else { return false }
        return !UnicodeTables.contains(UnicodeTables.closing, after.value) && !UnicodeTables.contains(UnicodeTables.nonStarter, after.value)
            && !UnicodeTables.contains(UnicodeTables.opening, before.value)
    }

    /// Whether `next` stays on the line of `previous` though spaces are between them.
    static func joinsAcrossSpaces(_ previous: String, _ next: String) -> Bool {
        guard let first = next.unicodeScalars.first(where: { $0 != StyleMark.open }).map(\.value) else { return false }
        if UnicodeTables.contains(UnicodeTables.closing, first) { return true }
        guard let last = previous.last?.unicodeScalars.first?.value else { return false }
        if UnicodeTables.contains(UnicodeTables.opening, last) { return true }
        // A non-starter after a closing bracket (LB16).
        return UnicodeTables.contains(UnicodeTables.nonStarter, first) && UnicodeTables.contains(UnicodeTables.closing, last)
            && [.closePunctuation].contains(previous.last?.unicodeScalars.first?.properties.generalCategory)
    }

    /// The first `columns` columns of `text` and the rest, cut between clusters.
    static func split(_ text: String, at columns: Int) -> (String, String) {
        var head = "", tail = ""
        var used = 0
        forEachCluster(text) { cluster in
            let size = Self.columns(cluster)
            // At least one character moves, however narrow `columns` (a wide one in one column).
            if tail.isEmpty, used + size <= max(columns, 1) || head.isEmpty {
                head.append(cluster)
                used += size
            } else {
                tail.append(cluster)
            }
        } mark: { mark in
            if tail.isEmpty { head += mark.text } else { tail += mark.text }
        }
        return (head, tail)
    }

    /// Calls `cluster` for each grapheme cluster and `mark` for each style mark, in order.
    static func forEachCluster(_ text: String, cluster: (Character) -> Void, mark: ((text: String, code: String)) -> Void) {
        guard text.unicodeScalars.contains(StyleMark.open) else {
            for each in text { cluster(each) }
            return
        }
        let scalars = Array(text.unicodeScalars)
        var plain = String.UnicodeScalarView()
        func flush() {
            for each in String(plain) { cluster(each) }
            plain.removeAll()
        }
        var index = 0
        while index < scalars.count {
            if scalars[index] == StyleMark.open, let (code, length) = StyleMark.parse(scalars, at: index) {
                flush()
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[index..<(index + length)])
                mark((String(view), code))
                index += length
            } else {
                plain.append(scalars[index])
                index += 1
            }
        }
        flush()
    }

    /// The columns one grapheme cluster takes.
    static func columns(_ cluster: Character) -> Int {
        let scalars = cluster.unicodeScalars
        guard let base = scalars.first else { return 0 }
        var rest = scalars.dropFirst()
        guard !rest.isEmpty else { return columns(base) }
        if base.properties.isEmoji {
            // Presentation asked for: VS16 emoji (two columns), VS15 text (one).
            if rest.contains("\u{FE0F}") { return 2 }
            if rest.contains("\u{FE0E}") { return 1 }
        }
        if (0x1F1E6...0x1F1FF).contains(base.value) { return 2 } // a flag: two regional indicators
        var total = columns(base)
        var spacingAllowed = total > 0
        while let scalar = rest.popFirst() {
            // What follows a joiner is drawn joined to what precedes it.
            if scalar.value == 0x200D {
                _ = rest.popFirst()
                continue
            }
            if (0x1F3FB...0x1F3FF).contains(scalar.value), base.properties.isEmoji { continue } // a skin tone
            if scalar.properties.generalCategory == .spacingMark {
                // A vowel sign or another spacing mark widens its base by one column, once.
                if spacingAllowed { total += 1 }
                spacingAllowed = false
                continue
            }
            let size = columns(scalar)
            total += size
            if size > 0 { spacingAllowed = true }
        }
        return total
    }

    /// The columns one scalar takes on its own.
    static func columns(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x300 { return 1 }
        switch value {
        // Hangul vowels and final consonants join the syllable before them; Hangul fillers
        // are not drawn. An Arabic number sign spans the digits after it: one column.
        case 0x1160...0x11FF, 0xD7B0...0xD7FF, 0x3164, 0xFFA0: return 0
        case 0x0600...0x0605, 0x06DD, 0x070F, 0x0890...0x0891, 0x08E2, 0x110BD, 0x110CD: return 1
        // A regional indicator alone is drawn as the emoji it is half of.
        case 0x1F1E6...0x1F1FF: return 2
        default: break
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .spacingMark, .lineSeparator, .paragraphSeparator: return 0
        default: break
        }
        return UnicodeTables.contains(UnicodeTables.wide, value) ? 2 : 1
    }
}
