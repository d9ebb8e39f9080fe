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
    static func visibleKeepingStyles(_ text: String, keepLines: Bool) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepLines: keepLines) }) else { return text }
        var result = ""
        var rest = Substring(text)
        while let escape = rest.firstIndex(of: "\u{1B}") {
            result += visible(String(rest[..<escape]), keepLines: keepLines)
            let candidate = rest[escape...]
            if let end = candidate.firstIndex(of: "m"), candidate.distance(from: candidate.startIndex, to: end) <= 4,
               let code = Int(candidate[candidate.index(candidate.startIndex, offsetBy: 2)..<end]),
               candidate.dropFirst().first == "[", code == 0 || Output.Style(rawValue: String(code)) != nil {
                result += candidate[...end]
                rest = candidate[candidate.index(after: end)...]
            } else {
                result += "^["
                rest = candidate.dropFirst()
            }
        }
        return result + visible(String(rest), keepLines: keepLines)
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
