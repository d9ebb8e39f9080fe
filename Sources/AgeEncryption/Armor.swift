/// age's ASCII armor (strict PEM, as the spec defines it): a BEGIN line, the file in padded
/// base64 in lines of exactly 64 columns (the last one 1-64), an END line. Whitespace may
/// surround it; nothing else may.
final class ArmorWriter: ByteSink {
    static let begin = Array("-----BEGIN AGE ENCRYPTED FILE-----\n".utf8)
    static let end = Array("-----END AGE ENCRYPTED FILE-----\n".utf8)
    private let output: ByteSink
    private var pending: [UInt8] = []

    init(output: ByteSink) throws {
        self.output = output
        try output.write(Self.begin)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        pending.append(contentsOf: bytes)
        let whole = pending.count / 48 * 48
        guard whole > 0 else { return }
        try emit(pending[0..<whole])
        pending.removeFirst(whole)
    }

    private func emit(_ bytes: ArraySlice<UInt8>) throws {
        let encoded = Base64.encode(bytes, padded: true)
        var lines: [UInt8] = []
        lines.reserveCapacity(encoded.count + encoded.count / 64 + 1)
        var offset = 0
        while offset < encoded.count {
            let end = min(offset + 64, encoded.count)
            lines += encoded[offset..<end]
            lines.append(0x0A)
            offset = end
        }
        try output.write(lines)
    }

    func finish() throws {
        if !pending.isEmpty { try emit(pending[...]) }
        pending.removeAll()
        try output.write(Self.end)
    }
}

/// Reads the armor, as a source of the decoded bytes.
final class ArmorReader: ByteSource {
    static let begin = Array("-----BEGIN AGE ENCRYPTED FILE-----".utf8)
    static let end = Array("-----END AGE ENCRYPTED FILE-----".utf8)
    /// How much whitespace may follow the END line.
    static let maxTrailing = 1 << 20

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C }

    private let input: PeekableSource
    private var previous: [UInt8]?
    private var decoded: [UInt8] = []
    private var offset = 0
    private var ended = false

    init(_ input: PeekableSource) throws {
        self.input = input
        while let byte = try input.peek(1).first, Self.isWhitespace(byte) { try skip(1) }
        guard let first = try line(), first == Self.begin else { throw AgeError.malformedArmor("it does not start with '-----BEGIN AGE ENCRYPTED FILE-----'") }
    }

    private func skip(_ count: Int) throws {
        var scratch = [UInt8](repeating: 0, count: count)
        _ = try scratch.withUnsafeMutableBytes { try input.readFully(into: $0) }
    }

    /// One line without its LF or CRLF; `nil` at the end of the input.
    private func line() throws -> [UInt8]? {
        guard var (line, _) = try input.readLine(limit: 66, tooLong: AgeError.malformedArmor("a line is longer than 64 columns")) else { return nil }
        if line.last == 0x0D { line.removeLast() }
        return line
    }

    func read(into target: UnsafeMutableRawBufferPointer) throws -> Int {
        while offset == decoded.count {
            if ended { return 0 }
            try nextLine()
        }
        let count = min(target.count, decoded.count - offset)
        decoded.withUnsafeBytes { target.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
        offset += count
        return count
    }

    private func nextLine() throws {
        decoded = []
        offset = 0
        guard let line = try line() else { throw AgeError.malformedArmor("it has no END line (truncated?)") }
        if line == Self.end {
            ended = true
            if let previous {
                guard let bytes = Base64.decodePadded(previous) else { throw AgeError.malformedArmor("its last line is not canonical padded base64") }
                decoded = bytes
            }
            try checkTrailing()
            return
        }
        guard !line.isEmpty else { throw AgeError.malformedArmor("it has an empty line") }
        guard line.count <= 64 else { throw AgeError.malformedArmor("a line is longer than 64 columns") }
        guard line.allSatisfy({ Base64.values[Int($0)] >= 0 || $0 == UInt8(ascii: "=") }) else {
            throw AgeError.malformedArmor("a line has a character that is not base64")
        }
        if let previous {
            guard previous.count == 64 else { throw AgeError.malformedArmor("a line before the last is shorter than 64 columns") }
            guard let bytes = Base64.decodeUnpadded(previous) else { throw AgeError.malformedArmor("a line is not canonical base64") }
            decoded = bytes
        }
        previous = line
    }

    private func checkTrailing() throws {
        var seen = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
            if count == 0 { return }
            guard buffer[0..<count].allSatisfy(Self.isWhitespace) else { throw AgeError.malformedArmor("data follows the END line") }
            seen += count
            guard seen <= Self.maxTrailing else { throw AgeError.malformedArmor("data follows the END line") }
        }
    }
}
