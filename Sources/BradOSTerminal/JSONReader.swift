import Foundation

/// A strict reader of JSON bytes, one value at a time, for the cache documents a command reads
/// in bulk (a thousand visits): JSONDecoder's keyed containers cost about 35,000 instructions
/// a small object, this about a tenth of that. It reads exactly what RFC 8259 allows and
/// throws ``Unreadable`` at anything else, so a caller that meets anything unexpected (a type
/// it does not know, a duplicate key, a malformed document) decodes the same bytes with
/// JSONDecoder instead, whose result and errors stand.
public struct JSONReader {
    /// Anything the reader does not take: the caller falls back to JSONDecoder.
    public struct Unreadable: Error { public init() {} }

    /// The keys of one object a caller has read, to refuse one given twice.
    public struct Duplicates {
        private var seen: UInt64 = 0
        public init() {}
        /// Records key number `bit` (0-63); throws ``Unreadable`` when it was seen before.
        public mutating func insert(_ bit: Int) throws {
            let mask: UInt64 = 1 << UInt64(bit)
            guard seen & mask == 0 else { throw Unreadable() }
            seen |= mask
        }
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    /// Objects and arrays open around the value being read: a hostile file nested deeper than
    /// ``maximumDepth`` is unreadable here (and JSONDecoder refuses it with an error) rather
    /// than a stack the recursion would exhaust.
    private var depth = 0
    static let maximumDepth = 256

    /// Reads `data` with `body`, which must consume one whole value; `nil` when the bytes are
    /// not that (or `body` throws).
    public static func read<T>(_ data: Data, _ body: (inout JSONReader) throws -> T) -> T? {
        data.withUnsafeBytes { raw in
            var reader = JSONReader(bytes: raw)
            guard let value = try? body(&reader) else { return nil }
            reader.skipSpace()
            return reader.index == raw.count ? value : nil
        }
    }

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func peek() throws -> UInt8 {
        skipSpace()
        guard index < bytes.count else { throw Unreadable() }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard try peek() == byte else { throw Unreadable() }
        index += 1
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Unreadable() }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw Unreadable() }
        index += count
    }

    /// Whether the next value is `null` (consumed if so).
    public mutating func isNull() throws -> Bool {
        guard try peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// Each member of an object, in order: `body` gets the key and must read its value. A key
    /// given twice is the caller's to refuse (which of the two JSONDecoder keeps is its business:
    /// ``Duplicates`` tells).
    public mutating func object(_ body: (inout JSONReader, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw Unreadable() }
        if try peek() == UInt8(ascii: "}") { index += 1; return }
        while true {
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try body(&self, key)
            let next = try peek()
            index += 1
            if next == UInt8(ascii: "}") { return }
            guard next == UInt8(ascii: ",") else { throw Unreadable() }
        }
    }

    /// Each element of an array, in order.
    public mutating func array(_ body: (inout JSONReader) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw Unreadable() }
        if try peek() == UInt8(ascii: "]") { index += 1; return }
        while true {
            try body(&self)
            let next = try peek()
            index += 1
            if next == UInt8(ascii: "]") { return }
            guard next == UInt8(ascii: ",") else { throw Unreadable() }
        }
    }

    public mutating func bool() throws -> Bool {
        switch try peek() {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: throw Unreadable()
        }
    }

    /// An integer written as one (`-12`, `0`): a fraction, an exponent or more than 18 digits is
    /// unreadable (JSONDecoder decides those).
    public mutating func int() throws -> Int {
        _ = try peek()
        var negative = false
        if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        let start = index
        var value = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value * 10 + Int(bytes[index] - 0x30)
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits <= 18, !(digits > 1 && bytes[start] == 0x30) else { throw Unreadable() }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            throw Unreadable()
        }
        return negative ? -value : value
    }

    /// A string, its escapes decoded; bytes that are not UTF-8, a control character or a lone
    /// surrogate are unreadable.
    public mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        var ascii = true
        // The common case: no escape, straight from the bytes (ASCII needs no validating).
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if ascii { return String(decoding: raw, as: UTF8.self) }
                guard let text = String(validating: raw, as: UTF8.self) else { throw Unreadable() }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw Unreadable() }
            ascii = ascii && byte < 0x80
            index += 1
        }
        var utf8 = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else { throw Unreadable() }
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw Unreadable() }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        try literal("\\u")
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw Unreadable() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw Unreadable()
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw Unreadable() }
                    utf8.append(contentsOf: String(Character(unicode)).utf8)
                default: throw Unreadable()
                }
            default:
                guard byte >= 0x20 else { throw Unreadable() }
                utf8.append(byte)
            }
        }
        throw Unreadable()
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw Unreadable() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw Unreadable()
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Reads past any one value (a key the caller does not use), checking it as it goes.
    public mutating func skip() throws {
        switch try peek() {
        case UInt8(ascii: "{"): try object { reader, _ in try reader.skip() }
        case UInt8(ascii: "["): try array { reader in try reader.skip() }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"): try literal("null")
        default: try number()
        }
    }

    /// Any number (checked to RFC 8259's grammar, not converted).
    private mutating func number() throws {
        let digit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, digit(bytes[index]) else { throw Unreadable() }
        if bytes[index] == 0x30 { index += 1 } else { while index < bytes.count, digit(bytes[index]) { index += 1 } }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, digit(bytes[index]) else { throw Unreadable() }
            while index < bytes.count, digit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, digit(bytes[index]) else { throw Unreadable() }
            while index < bytes.count, digit(bytes[index]) { index += 1 }
        }
    }
}
