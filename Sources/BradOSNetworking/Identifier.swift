import BradOSTerminal
import Foundation

/// The characters a remote id of one kind may hold.
///
/// Ids travel from a server, a cache file or an imported archive to places where text is
/// code: shell completion, a command line the user runs next, a URL path. So every id is
/// checked where it is decoded, against a small documented set (docs/security.md), and
/// an id outside it is refused as bad data (exit 8) and never cached.
///
/// | kind | characters | length |
/// |---|---|---|
/// | ``token`` (visit, conversation, message and plan ids) | `A-Z a-z 0-9 . _ -`, not starting with `-` or `.` | 1–128 |
/// | ``digits(_:)`` (numeric ids, such as a media server's item keys) | `0-9` | 1–20 |
public struct IdentifierRule: Sendable {
    /// What the id is called in messages ("visit id").
    public let name: String
    public let maxLength: Int
    /// The documented character set, as docs/security.md states it.
    public let characters: String
    private let allowsByte: @Sendable (UInt8, _ isFirst: Bool) -> Bool

    public init(name: String, maxLength: Int, characters: String, allows: @escaping @Sendable (UInt8, _ isFirst: Bool) -> Bool) {
        self.name = name
        self.maxLength = maxLength
        self.characters = characters
        self.allowsByte = allows
    }

    /// Letters, digits, `.`, `_` and `-`; never a leading `-` (it would read as an option)
    /// or `.` (a hidden or parent path).
    public static func token(_ name: String) -> IdentifierRule {
        IdentifierRule(name: name, maxLength: 128, characters: "A-Z a-z 0-9 . _ - (not first: - .)") { byte, isFirst in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                true
            case UInt8(ascii: "-"), UInt8(ascii: "."):
                !isFirst
            default:
                false
            }
        }
    }

    /// Decimal digits, at most 20 (any 64-bit key).
    public static func digits(_ name: String) -> IdentifierRule {
        IdentifierRule(name: name, maxLength: 20, characters: "0-9") { byte, _ in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }

    /// Whether `value` is an id of this kind. Linear in the length, and total.
    public func isValid(_ value: String) -> Bool {
        var count = 0
        for byte in value.utf8 {
            guard count < maxLength, allowsByte(byte, count == 0) else { return false }
            count += 1
        }
        return count > 0
    }

    /// - Throws: ``InvalidIdentifier`` when `value` is not an id of this kind.
    public func check(_ value: String) throws(InvalidIdentifier) {
        guard isValid(value) else { throw InvalidIdentifier(rule: self, value: value) }
    }
}

/// An id that is not in its kind's character set (see ``IdentifierRule``).
public struct InvalidIdentifier: Error, CustomStringConvertible, Sendable {
    public let name: String
    public let characters: String
    /// The value, shortened and with control characters made visible: safe to print.
    public let shown: String

    public init(rule: IdentifierRule, value: String) {
        name = rule.name
        characters = rule.characters
        shown = SafeText.visible(String(value.prefix(40)) + (value.count > 40 ? "…" : ""))
    }

    public var description: String { "\(name) \"\(shown)\" is not an id (allowed: \(characters))" }

    /// The first ``InvalidIdentifier`` inside a decoding error, if any.
    public static func found(in error: any Error) -> InvalidIdentifier? {
        if let invalid = error as? InvalidIdentifier { return invalid }
        guard let decoding = error as? DecodingError else { return nil }
        switch decoding {
        case let .dataCorrupted(context): return context.underlyingError.flatMap(found(in:))
        default: return nil
        }
    }
}

extension KeyedDecodingContainer {
    /// Decodes a string id and checks it against `rule`.
    /// - Throws: `DecodingError.dataCorrupted` wrapping ``InvalidIdentifier``.
    public func decode(_ rule: IdentifierRule, forKey key: Key) throws -> String {
        let value = try decode(String.self, forKey: key)
        guard rule.isValid(value) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: codingPath + [key], debugDescription: "not a \(rule.name)", underlyingError: InvalidIdentifier(rule: rule, value: value)))
        }
        return value
    }

    /// Decodes an optional string id and checks it against `rule` when present.
    /// - Throws: `DecodingError.dataCorrupted` wrapping ``InvalidIdentifier`` for a present id outside `rule`;
    ///   `DecodingError` for a value that is not a string.
    public func decodeIfPresent(_ rule: IdentifierRule, forKey key: Key) throws -> String? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decode(rule, forKey: key)
    }
}
