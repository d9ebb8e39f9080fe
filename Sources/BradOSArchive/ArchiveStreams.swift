import AgeEncryption
import BradOSCore
import CArchive
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSTerminal
#endif

/// Writes to a file descriptor (the archive file, or standard output).
final class FileDescriptorSink: ByteSink {
    let fd: Int32
    init(_ fd: Int32) { self.fd = fd }

    /// - Throws: ``ArchiveError/destinationFull(path:)`` (the caller names the file), ``ArchiveError/io(_:)``.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                if errno == ENOSPC || errno == EDQUOT { throw ArchiveError.destinationFull(path: nil) }
                if errno == EPIPE, fd == STDOUT_FILENO { throw ReaderGone() }
                throw ArchiveError.io("write: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}

/// Reads from a file descriptor (the archive file, or standard input).
final class FileDescriptorSource: ByteSource {
    let fd: Int32
    init(_ fd: Int32) { self.fd = fd }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw ArchiveError.io("read: \(String(cString: strerror(errno)))") }
            return count
        }
    }
}

/// The callbacks libarchive writes to and reads from: each holds its stream and the Swift
/// error that stopped it (libarchive only sees -1), so the caller rethrows that error.
final class ArchiveCallbackBox {
    let sink: ByteSink?
    let source: ByteSource?
    var error: (any Error)?
    let buffer: UnsafeMutableRawBufferPointer?

    init(sink: ByteSink) {
        self.sink = sink
        source = nil
        buffer = nil
    }

    init(source: ByteSource, bufferSize: Int = 1 << 17) {
        self.source = source
        sink = nil
        buffer = .allocate(byteCount: bufferSize, alignment: 16)
    }

    deinit { buffer?.deallocate() }
}

/// libarchive's write callback: to the box's sink.
func archiveWriteCallback(_: OpaquePointer?, _ client: UnsafeMutableRawPointer?, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    let box = Unmanaged<ArchiveCallbackBox>.fromOpaque(client!).takeUnretainedValue()
    guard let bytes else { return 0 }
    do {
        try box.sink!.write(UnsafeRawBufferPointer(start: bytes, count: count))
        return count
    } catch {
        box.error = box.error ?? error
        return -1
    }
}

/// libarchive's read callback: from the box's source, into its buffer.
func archiveReadCallback(_: OpaquePointer?, _ client: UnsafeMutableRawPointer?, _ pointer: UnsafeMutablePointer<UnsafeRawPointer?>?) -> Int {
    let box = Unmanaged<ArchiveCallbackBox>.fromOpaque(client!).takeUnretainedValue()
    do {
        let count = try box.source!.read(into: box.buffer!)
        pointer?.pointee = UnsafeRawPointer(box.buffer!.baseAddress)
        return count
    } catch {
        box.error = box.error ?? error
        return -1
    }
}
