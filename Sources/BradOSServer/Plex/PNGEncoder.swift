import CZlib
import Foundation

/// A minimal PNG encoder (8-bit RGB, filter 0, zlib) for the reference server's artwork.
enum PNGEncoder {
    /// Encodes `width × height` RGB rows produced by `row(y, &buffer)`.
    static func encode(width: Int, height: Int, level: Int32 = 1, row: (Int, inout [UInt8]) -> Void) -> Data {
        var raw = [UInt8](repeating: 0, count: (width * 3 + 1) * height)
        var line = [UInt8](repeating: 0, count: width * 3)
        for y in 0..<height {
            row(y, &line)
            let start = y * (width * 3 + 1)
            raw[start] = 0 // filter: none
            raw.replaceSubrange((start + 1)..<(start + 1 + width * 3), with: line)
        }
        var compressedLength = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
        let status = compress2(&compressed, &compressedLength, raw, uLong(raw.count), level)
        precondition(status == Z_OK, "zlib failed: \(status)")
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(bigEndian: UInt32(width))
        header.append(bigEndian: UInt32(height))
        header.append(contentsOf: [8, 2, 0, 0, 0]) // 8-bit, RGB, deflate, filter 0, no interlace
        png.appendChunk("IHDR", header)
        png.appendChunk("IDAT", Data(compressed[0..<Int(compressedLength)]))
        png.appendChunk("IEND", Data())
        return png
    }
}

extension Data {
    mutating func append(bigEndian value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }

    mutating func appendChunk(_ type: String, _ body: Data) {
        append(bigEndian: UInt32(body.count))
        var chunk = Data(type.utf8)
        chunk.append(body)
        append(chunk)
        let crc = chunk.withUnsafeBytes { crc32(0, $0.bindMemory(to: UInt8.self).baseAddress, uInt($0.count)) }
        append(bigEndian: UInt32(crc))
    }
}
