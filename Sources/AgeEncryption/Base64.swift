/// Strict base64 (RFC 4648, standard alphabet), as age needs it: the header uses the
/// unpadded form and refuses any non-canonical encoding (padding, or bits set past the end
/// of the data); the armor uses the padded form, just as strictly.
enum Base64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let values: [Int16] = {
        var table = [Int16](repeating: -1, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = Int16(index) }
        return table
    }()

    static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes, padded: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let value = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(value >> 18 & 63)])
            output.append(alphabet[Int(value >> 12 & 63)])
            if second != nil { output.append(alphabet[Int(value >> 6 & 63)]) } else if padded { output.append(UInt8(ascii: "=")) }
            if third != nil { output.append(alphabet[Int(value & 63)]) } else if padded { output.append(UInt8(ascii: "=")) }
        }
        return output
    }

    static func encodeString<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        String(decoding: encode(bytes, padded: false), as: UTF8.self)
    }

    /// Decodes canonical unpadded base64; `nil` for anything else.
    static func decodeUnpadded<Text: Collection<UInt8>>(_ text: Text) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in text {
            let value = values[Int(character)]
            guard value >= 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits must be zero: otherwise two encodings would decode to the same bytes.
        guard accumulator == 0 else { return nil }
        return output
    }

    /// Decodes canonical padded base64 (length a multiple of 4, at most two '=' at the end).
    static func decodePadded<Text: BidirectionalCollection<UInt8>>(_ text: Text) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var body = text[...]
        var padding = 0
        while padding < 2, body.last == UInt8(ascii: "=") { body = body.dropLast(); padding += 1 }
        guard body.count + padding == text.count, (body.count + padding) % 4 == 0 else { return nil }
        if padding > 0, body.count % 4 != 4 - padding { return nil }
        return decodeUnpadded(body)
    }
}
