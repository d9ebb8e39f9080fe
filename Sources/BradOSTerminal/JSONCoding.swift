import Foundation

/// The one JSON configuration shared by the caches and the networking core:
/// ISO-8601 dates (fractional seconds when present), sorted keys for stable files.
public enum JSONCoding {
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let whole = Date.ISO8601FormatStyle()

    /// Formats a date the way every brados file and request does: UTC to the millisecond,
    /// `2026-11-27T18:30:00.123Z`. The milliseconds are rounded, not cut: a time read as
    /// .123 is written back as .123 (a binary fraction just below it is no .122, nor .121).
    public static func string(from date: Date) -> String {
        guard let utc = UTCTime(date) else { return fractional.format(date) }
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(utc.year, 4))-\(pad(utc.month, 2))-\(pad(utc.day, 2))T\(pad(utc.hour, 2)):\(pad(utc.minute, 2)):\(pad(utc.second, 2)).\(pad(utc.millisecond, 3))Z"
    }

    /// A date's UTC calendar fields, to the millisecond (years 0-9999), from integer arithmetic:
    /// the one conversion behind brados's timestamps (``string(from:)``, iCalendar's times).
    public struct UTCTime: Sendable, Equatable {
        public var year, month, day, hour, minute, second, millisecond: Int

        /// `nil` outside years 0-9999 (or for a date that is not finite).
        public init?(_ date: Date) {
            let total = (date.timeIntervalSince1970 * 1000).rounded()
            guard total.isFinite, abs(total) < 253_402_300_800_000 else { return nil }
            let (secondsOfEpoch, millisecond) = Int(total).quotientAndRemainder(dividingBy: 1000)
            var seconds = secondsOfEpoch
            var fraction = millisecond
            if fraction < 0 { fraction += 1000; seconds -= 1 }
            var days = seconds / 86400
            var secondOfDay = seconds % 86400
            if secondOfDay < 0 { secondOfDay += 86400; days -= 1 }
            // The civil date from days since 1970 (proleptic Gregorian), the inverse of parseTimestamp's.
            let z = days + 719_468
            let era = (z >= 0 ? z : z - 146_096) / 146_097
            let dayOfEra = z - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let monthIndex = (5 * dayOfYear + 2) / 153
            day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
            month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
            year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
            guard (0...9999).contains(year) else { return nil }
            hour = secondOfDay / 3600
            minute = secondOfDay / 60 % 60
            second = secondOfDay % 60
            self.millisecond = fraction
        }
    }

    /// Parses ISO-8601 with or without fractional seconds.
    public static func date(from string: String) -> Date? {
        parseTimestamp(string) ?? (try? fractional.parse(string)) ?? (try? whole.parse(string))
    }

    /// A fast parser for the timestamps brados reads (every cached date goes through it; the
    /// ISO-8601 format style took a tenth of a warm `mealplan show`): `2026-11-21T10:15:30Z`,
    /// any number of fractional digits, `Z`, `+02`, `+02:00` or `-0500`, `T` or a space;
    /// no zone means UTC. `nil` for anything else.
    public static func parseTimestamp(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? { decimal(bytes, range) }
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                guard let hours = number((index + 1)..<(index + 3)) else { return nil }
                index += 3
                var minutes = 0
                if index < bytes.count {
                    if bytes[index] == UInt8(ascii: ":") { index += 1 }
                    guard let value = number(index..<(index + 2)) else { return nil }
                    minutes = value
                    index += 2
                }
                offset = sign * (hours * 3600 + minutes * 60)
            default: return nil
            }
        }
        guard index == bytes.count else { return nil }
        // Days from the civil date (proleptic Gregorian), then seconds.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }


    /// The decimal number the ASCII digits `bytes[range]` spell; `nil` when one is not a digit
    /// or the range runs past the end.
    static func decimal(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        guard range.upperBound <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[range] {
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    /// A new encoder (encoders are not thread-safe to share while mutating options).
    public static func makeEncoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(string(from: date))
        }
        return encoder
    }

    /// A new decoder accepting ISO-8601 dates with or without fractional seconds.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected an ISO-8601 date, got '\(text)'")
            }
            return date
        }
        return decoder
    }

    /// Encodes `value` with ``makeEncoder(pretty:)``: sorted keys, ISO-8601 dates.
    /// - Throws: `EncodingError` when `value` cannot be encoded.
    public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) throws -> Data {
        try makeEncoder(pretty: pretty).encode(value)
    }

    /// Decodes `type` from `data` with ``makeDecoder()`` (ISO-8601 dates, fractional seconds or not).
    /// - Throws: `DecodingError` when `data` is not JSON of that shape.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try makeDecoder().decode(type, from: data)
    }
}
