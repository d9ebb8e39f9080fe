import Foundation

/// The one JSON configuration shared by the caches and the networking core:
/// ISO-8601 dates (fractional seconds when present), sorted keys for stable files.
public enum JSONCoding {
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let whole = Date.ISO8601FormatStyle()

    /// Formats a date the way every brados file and request does.
    public static func string(from date: Date) -> String { fractional.format(date) }

    /// Parses ISO-8601 with or without fractional seconds.
    public static func date(from string: String) -> Date? {
        (try? fractional.parse(string)) ?? (try? whole.parse(string))
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

    public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) throws -> Data {
        try makeEncoder(pretty: pretty).encode(value)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try makeDecoder().decode(type, from: data)
    }
}
