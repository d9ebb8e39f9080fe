/// Text from a server, a cache or an archive, made safe to print: control characters are
/// shown, never obeyed (as `gh` does). A title holding `ESC ] 52` cannot set the clipboard,
/// `ESC [ 2 J` cannot clear the screen, and `\r` cannot overwrite what came before it.
///
/// - C0 controls and DEL in caret notation: ESC is `^[`, CR `^M`, DEL `^?`.
/// - C1 controls (U+0080–U+009F) as `^[` and the matching letter: CSI (U+009B) is `^[[`.
/// - Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) as `<U+202E>`,
///   so text cannot reorder itself on screen.
///
/// Linear in the length; text without such characters is returned as it is.
public enum SafeText {
    /// `text` with every control character visible. `keepLines` keeps `\n` and `\t`
    /// (multi-line fields such as message text); table cells and single values drop it.
    public static func visible(_ text: String, keepLines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepLines: keepLines) }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar, keepLines: keepLines) else { result.append(scalar); continue }
            result.append(contentsOf: shown(scalar).unicodeScalars)
        }
        return String(result)
    }

    /// `text` as ``visible(_:keepLines:)`` makes it, except that the exact style sequences
    /// brados itself writes (``Output/Style``: `ESC [ N m`) are kept, so colors still work.
    public static func visibleKeepingStyles(_ text: String, keepLines: Bool) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepLines: keepLines) }) else { return text }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\u{1B}", let length = ownStyle(scalars, at: index) {
                result.append(contentsOf: scalars[index..<(index + length)])
                index += length
                continue
            }
            if needsEscape(scalar, keepLines: keepLines) { result.append(contentsOf: shown(scalar).unicodeScalars) } else { result.append(scalar) }
            index += 1
        }
        return String(result)
    }

    /// The length of one of brados's own style sequences (`ESC [ N m`, N one of ``Output/Style``
    /// or 0) starting at `index`, or `nil`.
    static func ownStyle(_ scalars: [Unicode.Scalar], at index: Int) -> Int? {
        guard index + 3 < scalars.count, scalars[index + 1] == "[" else { return nil }
        var digits = ""
        var cursor = index + 2
        while cursor < scalars.count, digits.count < 2, ("0"..."9").contains(scalars[cursor]) {
            digits.unicodeScalars.append(scalars[cursor])
            cursor += 1
        }
        guard !digits.isEmpty, cursor < scalars.count, scalars[cursor] == "m",
              digits == "0" || Output.Style(rawValue: digits) != nil else { return nil }
        return cursor - index + 1
    }

    static func needsEscape(_ scalar: Unicode.Scalar, keepLines: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: !keepLines
        case 0x00...0x1F, 0x7F, 0x80...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
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
