/// Where bytes go: an age encryptor writes to one and is one (so layers stack).
public protocol ByteSink: AnyObject {
    /// Writes all of `bytes` (or throws).
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Where bytes come from: a decryptor reads from one and is one.
public protocol ByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; 0 only at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

extension ByteSink {
    public func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }
}

extension ByteSource {
    /// Fills `buffer` unless the source ends first; returns how many bytes were read.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }
}

/// An in-memory sink (tests, small headers).
public final class MemorySink: ByteSink {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public func write(_ bytes: UnsafeRawBufferPointer) throws { self.bytes.append(contentsOf: bytes) }
}

/// An in-memory source.
public final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

/// A source with look-ahead: what `peek` saw is read again. The age reader detects the
/// format from the first bytes, and reads the header line by line, through one of these.
public final class PeekableSource: ByteSource {
    private let base: ByteSource
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false

    public init(_ base: ByteSource) { self.base = base }

    /// Up to `count` bytes from the current position, without consuming them (fewer at the end).
    public func peek(_ count: Int) throws -> ArraySlice<UInt8> {
        while buffer.count - start < count, !ended {
            var chunk = [UInt8](repeating: 0, count: max(count - (buffer.count - start), 4096))
            let read = try chunk.withUnsafeMutableBytes { try base.read(into: $0) }
            if read == 0 { ended = true; break }
            if start > 0 { buffer.removeFirst(start); start = 0 }
            buffer.append(contentsOf: chunk[0..<read])
        }
        return buffer[start..<min(buffer.count, start + count)]
    }

    /// One line without its LF, or `nil` at the end; at most `limit` bytes, else throws
    /// `tooLong`. `sawNewline` tells whether the line ended with LF (not at the end of input).
    public func readLine(limit: Int, tooLong: @autoclosure () -> Error) throws -> (line: [UInt8], sawNewline: Bool)? {
        var line: [UInt8] = []
        while true {
            if start == buffer.count {
                _ = try peek(4096)
                if start == buffer.count { return line.isEmpty ? nil : (line, false) }
            }
            let available = buffer[start...]
            if let newline = available.firstIndex(of: 0x0A) {
                line.append(contentsOf: buffer[start..<newline])
                start = newline + 1
                guard line.count <= limit else { throw tooLong() }
                return (line, true)
            }
            line.append(contentsOf: available)
            start = buffer.count
            guard line.count <= limit else { throw tooLong() }
        }
    }

    public func read(into target: UnsafeMutableRawBufferPointer) throws -> Int {
        if start < buffer.count {
            let count = min(target.count, buffer.count - start)
            buffer.withUnsafeBytes { target.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: count) }
            start += count
            if start == buffer.count { buffer.removeAll(keepingCapacity: false); start = 0 }
            return count
        }
        if ended { return 0 }
        return try base.read(into: target)
    }
}
