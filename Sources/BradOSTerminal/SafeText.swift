/// Text from a server, a cache or an archive, made safe to print: control characters are
/// shown, never obeyed (as `gh` does). A title holding `ESC ] 52` cannot set the clipboard,
/// `ESC [ 2 J` cannot clear the screen, and `\r` cannot overwrite what came before it.
///
/// - C0 controls and DEL in caret notation: ESC is `^[`, CR `^M`, DEL `^?`.
/// - C1 controls (U+0080–U+009F) as `^[` and the matching letter: CSI (U+009B) is `^[[`.
/// - Bidirectional embeddings and overrides (U+202A–U+202E) as `<U+202E>`, so text cannot
///   reorder itself on screen. Isolates (U+2066–U+2069) and the marks LRM, RLM and ALM pass
///   as the formatting they are ("מרפאה ⁨Dr. Cohen⁩"), and an isolate a line leaves open is
///   closed at its end (U+2069): no direction leaks out of a field into brados's columns.
///
/// Linear in the length; text without such characters is returned as it is.
///
/// brados's own colours are not escape sequences until the last moment: ``Output/styled(_:_:)``
/// writes a ``StyleMark``, which only ``rendered(_:keepLines:)`` turns into one, so text from
/// elsewhere can never pass for a colour brados chose.
public enum SafeText {
    /// `text` with every control character visible. `keepLines` keeps `\n` and `\t`
    /// (multi-line fields such as message text); table cells and single values drop it.
    public static func visible(_ text: String, keepLines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepLines: keepLines) || isIsolate($0) }) else { return text }
        var result = String.UnicodeScalarView()
        var open = 0
        for scalar in text.unicodeScalars {
            if scalar == "\n" { closeIsolates(&result, &open) }
            trackIsolates(scalar, &open)
            guard needsEscape(scalar, keepLines: keepLines) else { result.append(scalar); continue }
            result.append(contentsOf: shown(scalar).unicodeScalars)
        }
        closeIsolates(&result, &open)
        return String(result)
    }

    /// `text` (one line) with the isolates it leaves open closed at its end (U+2069 each):
    /// a field cut short, or a line of a wrapped one, keeps its direction to itself.
    public static func closingIsolates(_ line: String) -> String {
        guard line.unicodeScalars.contains(where: isIsolate) else { return line }
        var open = 0
        for scalar in line.unicodeScalars { trackIsolates(scalar, &open) }
        return open == 0 ? line : line + String(repeating: "\u{2069}", count: open)
    }

    /// LRI, RLI, FSI and PDI (U+2066–U+2069).
    static func isIsolate(_ scalar: Unicode.Scalar) -> Bool { (0x2066...0x2069).contains(scalar.value) }

    private static func trackIsolates(_ scalar: Unicode.Scalar, _ open: inout Int) {
        switch scalar.value {
        case 0x2066...0x2068: open += 1
        case 0x2069: open = max(0, open - 1)
        default: break
        }
    }

    private static func closeIsolates(_ text: inout String.UnicodeScalarView, _ open: inout Int) {
        for _ in 0..<open { text.append("\u{2069}") }
        open = 0
    }

    /// `text` ready for the terminal: every control character visible (as
    /// ``visible(_:keepLines:)`` makes it) and each of brados's own style marks
    /// (``Output/styled(_:_:)``, ``StyleMark``) turned into its escape sequence. An escape
    /// sequence in the text itself, a colour from a server's message included, is shown, never obeyed.
    /// - Parameter resolvingStyles: false keeps the marks as marks (a table's cells, measured
    ///   and cut before the table is printed).
    public static func rendered(_ text: String, keepLines: Bool, resolvingStyles: Bool = true) -> String {
        guard text.unicodeScalars.contains(where: { $0 == StyleMark.open || needsEscape($0, keepLines: keepLines) || isIsolate($0) }) else { return text }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        var open = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\n" { closeIsolates(&result, &open) }
            trackIsolates(scalar, &open)
            if scalar == StyleMark.open, let (code, length) = StyleMark.parse(scalars, at: index) {
                if resolvingStyles { result.append(contentsOf: "\u{1B}[\(code)m".unicodeScalars) } else { result.append(contentsOf: scalars[index..<(index + length)]) }
                index += length
                continue
            }
            if needsEscape(scalar, keepLines: keepLines) { result.append(contentsOf: shown(scalar).unicodeScalars) } else { result.append(scalar) }
            index += 1
        }
        closeIsolates(&result, &open)
        return String(result)
    }

    /// `text` with brados's own style marks turned into escape sequences and nothing else
    /// changed: for text whose parts from elsewhere were made ``visible(_:keepLines:)`` as it
    /// was composed, around pictures whose own escape sequences must reach the terminal.
    public static func resolvingStyles(_ text: String) -> String {
        guard text.unicodeScalars.contains(StyleMark.open) else { return text }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if scalars[index] == StyleMark.open, let (code, length) = StyleMark.parse(scalars, at: index) {
                result.append(contentsOf: "\u{1B}[\(code)m".unicodeScalars)
                index += length
            } else {
                result.append(scalars[index])
                index += 1
            }
        }
        return String(result)
    }

    package static func needsEscape(_ scalar: Unicode.Scalar, keepLines: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: !keepLines
        case 0x00...0x1F, 0x7F, 0x80...0x9F, 0x202A...0x202E: true
        default: false
        }
    }

    static func shown(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x00...0x1F: "^" + String(Character(Unicode.Scalar(UInt8(scalar.value + 0x40))))
        case 0x7F: "^?"
        case 0x80...0x9F: "^[" + String(Character(Unicode.Scalar(UInt8(scalar.value - 0x40))))
        default: "<U+" + String(scalar.value, radix: 16, uppercase: true) + ">"
        }
    }

    /// JSON text with DEL, C1 controls and bidi overrides escaped as `\uXXXX` (JSONEncoder
    /// escapes only U+0000–U+001F). Those characters can only occur inside JSON strings, so
    /// the document means the same.
    public static func escapingJSON(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { $0.value >= 0x7F && needsEscape($0, keepLines: true) }) else { return json }
        var result = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if scalar.value >= 0x7F && needsEscape(scalar, keepLines: true) {
                let hex = String(scalar.value, radix: 16)
                result.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}

/// A style brados chose, inside text it composes: U+E000, a secret drawn once per process, the
/// SGR code, U+E001. Only ``SafeText/rendered(_:keepLines:)`` (and ``SafeText/resolvingStyles(_:)``)
/// turn one into `ESC [ code m`; text from a server, a cache or an archive cannot hold one,
/// because it cannot know the secret, so its own escape sequences are always shown as text.
public enum StyleMark {
    static let open: Unicode.Scalar = "\u{E000}"
    static let close: Unicode.Scalar = "\u{E001}"
    /// Sixteen hexadecimal digits from the system's random source, once per process.
    static let secret: [Unicode.Scalar] = {
        var generator = SystemRandomNumberGenerator()
        return Array(String(generator.next() as UInt64, radix: 16).leftPadded(to: 16).unicodeScalars)
    }()

    /// The mark of the SGR code `code` ("31", "0").
    public static func mark(_ code: String) -> String {
        var text = String.UnicodeScalarView()
        text.append(open)
        text.append(contentsOf: secret)
        text.append(contentsOf: code.unicodeScalars)
        text.append(close)
        return String(text)
    }

    /// The code and length of a mark starting at `index`, or `nil` when what is there is not one.
    static func parse(_ scalars: [Unicode.Scalar], at index: Int) -> (code: String, length: Int)? {
        let secretEnd = index + 1 + secret.count
        guard secretEnd < scalars.count, Array(scalars[(index + 1)..<secretEnd]) == secret else { return nil }
        var cursor = secretEnd
        var code = ""
        while cursor < scalars.count, code.count < 3, ("0"..."9").contains(scalars[cursor]) {
            code.unicodeScalars.append(scalars[cursor])
            cursor += 1
        }
        guard !code.isEmpty, cursor < scalars.count, scalars[cursor] == close else { return nil }
        return (code, cursor - index + 1)
    }
}

extension String {
    /// The string with zeros before it up to `length` characters.
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
