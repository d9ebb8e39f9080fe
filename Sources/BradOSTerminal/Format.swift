import CBradOSSystem
import Foundation

/// Human formatting of sizes, ages and durations.
public enum Format {
    /// `512 B`, `1.2 KB`, `250 MB` (decimal units, like `ls -h --si`).
    public static func bytes(_ count: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 { value /= 1000; unit += 1 }
        if unit == 0 { return "\(count) B" }
        return printfFixed(value, decimals: value >= 100 ? 0 : 1) + " " + units[unit]
    }

    /// `just now`, `42 s`, `5 min`, `3 h`, `2 days`.
    public static func age(_ seconds: TimeInterval) -> String {
        let s = max(0, Int(seconds))
        switch s {
        case ..<2: return "just now"
        case ..<60: return "\(s) s"
        case ..<3600: return "\(s / 60) min"
        case ..<86400: return "\(s / 3600) h"
        default: return s / 86400 == 1 ? "1 day" : "\(s / 86400) days"
        }
    }

    /// `just now`, `42 s ago`, `5 min ago`.
    public static func ago(_ seconds: TimeInterval) -> String {
        let text = age(seconds)
        return text == "just now" ? text : "\(text) ago"
    }

    /// `2026-11-19` in the local time zone (ISO 8601: unambiguous, and no ICU start-up cost).
    public static func day(_ date: Date, timeZone: TimeZone = .local) -> String {
        day(components(date, timeZone))
    }

    /// `2026-11-19` of fields already taken.
    static func day(_ parts: (year: Int, month: Int, day: Int, hour: Int, minute: Int)) -> String {
        "\(parts.year)-\(padded(parts.month))-\(padded(parts.day))"
    }

    /// `2026-11-21 14:30` in the local time zone.
    public static func minute(_ date: Date, timeZone: TimeZone = .local) -> String {
        DisplayForms.standard.minute(date, timeZone: timeZone)
    }

    /// The date's fields in the time zone: the Gregorian calendar's arithmetic alone (no
    /// format style, whose first use costs a screen like `brados today` more than its reads).
    static func components(_ date: Date, _ timeZone: TimeZone) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        let parts = GregorianCalendars.calendar(in: timeZone).dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return (parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0)
    }

    static func padded(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// `84`, `84.5`, `-0.25`: at most two decimals, no trailing zeros.
    public static func number(_ value: Double) -> String {
        var text = printfFixed(value, decimals: 2)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// `value` with `decimals` places as printf's `%.*f` writes it (C's snprintf: the same text as
    /// `String(format:)`, without its CVarArg casts; see brados_format_fixed).
    static func printfFixed(_ value: Double, decimals: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let places = Int32(clamping: max(0, min(decimals, 20)))
        let written = Int(brados_format_fixed(&buffer, UInt(buffer.count), value, places))
        if written >= buffer.count {
            // Only a huge number (|value| >= 1e42 or so) needs more room.
            buffer = [CChar](repeating: 0, count: written + 1)
            _ = brados_format_fixed(&buffer, UInt(buffer.count), value, places)
        }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// `1 file`, `2 files`, `1024 files`.
    public static func count(_ value: Int, _ noun: String) -> String {
        "\(count(value)) \(value == 1 ? noun : noun + "s")"
    }

    /// `2252`: no thousands separator, in every command (a comma is a decimal to half the
    /// world, a point to the other half; digits alone read the same everywhere and paste
    /// into a calculator or a spreadsheet as they are).
    public static func count(_ value: Int) -> String { String(value) }

    /// `84.50` with `decimals` places, the ASCII minus (`-0.00` is `0.00`).
    public static func fixed(_ value: Double, decimals: Int) -> String {
        let text = printfFixed(value, decimals: decimals)
        return text.hasPrefix("-") && text.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) ? String(text.dropFirst()) : text
    }

    /// `+0.4`, `-1.2`, `0.0`: a change, signed with the ASCII hyphen-minus (one minus sign
    /// everywhere: what copy, paste and screen readers expect).
    public static func signed(_ value: Double, decimals: Int) -> String {
        let text = fixed(value, decimals: decimals)
        return text.hasPrefix("-") || text.allSatisfy({ $0 == "0" || $0 == "." }) ? text : "+" + text
    }

    /// `+12`, `-102`, `0`.
    public static func signed(_ value: Int) -> String { value > 0 ? "+\(value)" : "\(value)" }

    /// The first line of `text`, cut to `limit` characters with `…` (for table cells).
    public static func firstLine(_ text: String, _ limit: Int) -> String {
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        return line.count <= limit ? line : String(line.prefix(limit - 1)) + "…"
    }

    /// `250 ms`, `1.5 s`.
    public static func duration(_ duration: Duration) -> String {
        let ms = duration.milliseconds
        return ms < 1000 ? "\(ms) ms" : printfFixed(Double(ms) / 1000, decimals: 1) + " s"
    }
}

/// Parses `300`, `300s`, `5m`, `1h`, `2d` into a duration.
public func parseDuration(_ value: String) -> Duration? {
    // Plain Swift, no CharacterSet or dictionary: three settings are parsed on every read
    // of a cached domain (bench/RESULTS.md).
    var text = Substring(value.lowercased())
    while text.first == " " || text.first == "\t" { text.removeFirst() }
    while text.last == " " || text.last == "\t" { text.removeLast() }
    guard let unit = text.last else { return nil }
    // At most ten years: larger values are typos, and must never overflow.
    let limit: Int64 = 10 * 365 * 86400
    let multiplier: Int64? = switch unit {
    case "s": 1
    case "m": 60
    case "h": 3600
    case "d": 86400
    case "w": 604_800
    default: nil
    }
    if let multiplier, let number = Int64(text.dropLast()), number >= 0 {
        let (seconds, overflow) = number.multipliedReportingOverflow(by: multiplier)
        return overflow || seconds > limit ? nil : .seconds(seconds)
    }
    if let seconds = Int64(text), seconds >= 0, seconds <= limit { return .seconds(seconds) }
    return nil
}


extension Duration {
    /// Whole milliseconds.
    public var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
    /// Seconds, with the fraction.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
