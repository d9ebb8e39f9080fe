import Foundation

/// A baseline JPEG (JFIF, YCbCr 4:4:4) written straight from quantized DCT coefficients: the
/// reference server's artwork is flat colour blocks and bands of noise, which need no pixel
/// transform, so generating a 2048 px image costs one pass of entropy coding.
///
/// Real Plex photo transcodes are JPEG; this lets clients see exactly that (markers, Huffman
/// tables, byte stuffing) without a codec dependency. Decoders such as libjpeg and Pillow read it.
enum JPEGEncoder {
    /// One 8×8 block of one component: its DC value (the block's mean level minus 128, in
    /// quantizer steps of 8) and, for a busy block, 63 nonzero AC values (zigzag order).
    struct Block {
        var dc: Int
        var ac: [Int]?
    }

    /// Every quantizer step is 8: a DC value is a mean level (−128…127) as is.
    static let quantizer: UInt8 = 8

    /// The image, MCU by MCU (left to right, top to bottom): `block(column, row, component)`.
    static func encode(width: Int, height: Int, block: (Int, Int, Int) -> Block) -> Data {
        precondition((1...65535).contains(width) && (1...65535).contains(height))
        var out = Data()
        out.append(contentsOf: [0xFF, 0xD8])
        // APP0: JFIF 1.1, no density, no thumbnail.
        segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0], into: &out)
        segment(0xDB, [0x00] + [UInt8](repeating: quantizer, count: 64), into: &out)
        segment(0xC0, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3]
                + (1...3).flatMap { [UInt8($0), 0x11, 0] }, into: &out)
        // One DC table (categories 0-11) and one AC table (EOB and run 0, sizes 1-10), every
        // code four bits long, shared by the three components.
        segment(0xC4, [0x00] + lengths(count: dcSymbols.count) + dcSymbols + [0x10] + lengths(count: acSymbols.count) + acSymbols, into: &out)
        segment(0xDA, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0], into: &out)

        var bits = BitWriter()
        var previous = [0, 0, 0]
        for row in 0..<((height + 7) / 8) {
            for column in 0..<((width + 7) / 8) {
                for component in 0..<3 {
                    let value = block(column, row, component)
                    let dc = max(-1023, min(1023, value.dc)) // differences then fit category 11
                    let difference = dc - previous[component]
                    previous[component] = dc
                    let size = category(difference)
                    bits.write(code(for: UInt8(size), in: dcSymbols), count: 4)
                    bits.write(amplitude(difference, size: size), count: size)
                    if let ac = value.ac {
                        precondition(ac.count == 63 && ac.allSatisfy { $0 != 0 && abs($0) <= 1023 })
                        for coefficient in ac {
                            let size = category(coefficient)
                            bits.write(code(for: UInt8(size), in: acSymbols), count: 4)
                            bits.write(amplitude(coefficient, size: size), count: size)
                        }
                    } else {
                        bits.write(code(for: 0x00, in: acSymbols), count: 4) // end of block
                    }
                }
            }
        }
        out.append(bits.finish())
        out.append(contentsOf: [0xFF, 0xD9])
        return out
    }

    static let dcSymbols: [UInt8] = Array(0...11)
    static let acSymbols: [UInt8] = Array(0...10)

    /// BITS: how many codes of each length 1…16 (all four bits long here).
    static func lengths(count: Int) -> [UInt8] {
        var bits = [UInt8](repeating: 0, count: 16)
        bits[3] = UInt8(count)
        return bits
    }

    /// Canonical codes of equal length are the symbols' positions in the table.
    static func code(for symbol: UInt8, in symbols: [UInt8]) -> UInt32 { UInt32(symbols.firstIndex(of: symbol)!) }

    /// The number of bits of |value| (0 for 0).
    static func category(_ value: Int) -> Int { value == 0 ? 0 : Int.bitWidth - abs(value).leadingZeroBitCount }

    /// A value's extra bits: itself when positive, its one's complement when negative.
    static func amplitude(_ value: Int, size: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: value >= 0 ? value : value + (1 << size) - 1)
    }

    static func segment(_ marker: UInt8, _ body: [UInt8], into out: inout Data) {
        let length = body.count + 2
        out.append(contentsOf: [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)])
        out.append(contentsOf: body)
    }

    /// Entropy-coded bits, most significant first, with a 0x00 stuffed after every 0xFF.
    struct BitWriter {
        var bytes = Data()
        var buffer: UInt32 = 0
        var filled = 0

        mutating func write(_ value: UInt32, count: Int) {
            guard count > 0 else { return }
            buffer = (buffer << UInt32(count)) | (value & ((1 << UInt32(count)) - 1))
            filled += count
            while filled >= 8 {
                filled -= 8
                emit(UInt8(truncatingIfNeeded: buffer >> UInt32(filled)))
            }
            buffer &= (1 << UInt32(filled)) - 1
        }

        mutating func emit(_ byte: UInt8) {
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0x00) }
        }

        /// The bytes, the last one padded with 1 bits.
        mutating func finish() -> Data {
            if filled > 0 { write((1 << UInt32(8 - filled)) - 1, count: 8 - filled) }
            return bytes
        }
    }
}
