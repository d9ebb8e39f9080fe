import Foundation

/// A date or time as a person types it on the command line (`--at`): ISO 8601 in any of
/// its common shapes. With an offset (`Z`, `+02:00`) it is that instant; without one it is
/// local time, as a person means it: `2026-11-28T14:30` is half past two where they are.
///
/// - `2026-11-28`: the start of that day, local time.
/// - `2026-11-28T14:30`, `2026-11-28 14:30`: local time, to the minute.
/// - `2026-11-28T14:30:05`, with fractional seconds too: local time.
/// - any of the above with `Z`, `+02`, `+02:00` or `-0500`: that instant.
public enum DateInput {
    /// The instant `text` names, in `timeZone` when it gives no offset; `nil` when it is none of the shapes above.
    public static func parse(_ text: String, timeZone: TimeZone = .local) -> Date? {
        var text = text.trimmingCharacters(in: .whitespaces)
        var timeZone = timeZone
        if let (local, seconds) = offset(text) {
            guard let zone = TimeZone(secondsFromGMT: seconds) else { return nil }
            text = local
            timeZone = zone
        }
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? { JSONCoding.decimal(bytes, range) }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var components = DateComponents(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
        if bytes.count > 10 {
            guard bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "), bytes.count >= 16, bytes[13] == UInt8(ascii: ":"),
                  let hour = number(11..<13), let minute = number(14..<16), hour < 24, minute < 60 else { return nil }
            components.hour = hour
            components.minute = minute
            if bytes.count > 16 {
                // Seconds and a fraction: the timestamp parser reads them (as UTC, moved to the zone below).
                guard bytes[16] == UInt8(ascii: ":"), let utc = JSONCoding.parseTimestamp(text + "Z") else { return nil }
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "UTC")!
                let fraction = utc.timeIntervalSince1970 - utc.timeIntervalSince1970.rounded(.down)
                components.second = calendar.component(.second, from: utc)
                guard let whole = Self.date(components, timeZone) else { return nil }
                return whole.addingTimeInterval(fraction)
            }
        }
        return date(components, timeZone)
    }

    /// A time's offset from UTC (`Z`, `+02`, `+02:00`, `-0500`), in seconds, and the text
    /// before it; `nil` when it has none (only a time, from the minutes on, can have one).
    static func offset(_ text: String) -> (String, Int)? {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count > 16 else { return nil }
        if scalars.last == "Z" || scalars.last == "z" { return (String(text.unicodeScalars.dropLast()), 0) }
        guard let sign = scalars[16...].lastIndex(where: { $0 == "+" || $0 == "-" }) else { return nil }
        let digits = scalars[(sign + 1)...].filter { $0 != ":" }
        guard [2, 4].contains(digits.count), digits.allSatisfy({ ("0"..."9").contains($0) }),
              scalars[(sign + 1)...].filter({ $0 == ":" }).count <= (digits.count == 4 ? 1 : 0),
              let hours = Int(String(String.UnicodeScalarView(digits.prefix(2)))),
              let minutes = digits.count == 4 ? Int(String(String.UnicodeScalarView(digits.suffix(2)))) : 0,
              hours <= 18, minutes < 60 else { return nil }
        var local = String.UnicodeScalarView()
        local.append(contentsOf: scalars[..<sign])
        return (String(local), (scalars[sign] == "-" ? -1 : 1) * (hours * 3600 + minutes * 60))
    }

    private static func date(_ components: DateComponents, _ timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let date = calendar.date(from: components),
              calendar.component(.day, from: date) == components.day else { return nil } // 2026-02-31 is no date
        return date
    }

    /// What `--at` takes, for help texts and errors.
    public static let shapes = "2026-11-28, 2026-11-28T14:30 or 2026-11-28T14:30:00Z (without an offset: local time)"
}
