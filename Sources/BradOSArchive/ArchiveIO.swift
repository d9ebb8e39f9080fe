import AgeEncryption
import BradOSCore
import CArchive
import CArchiveLoader
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSTerminal
#endif

/// The compressions `brados cache export` writes.
public enum ArchiveCompression: String, Sendable, CaseIterable, Codable {
    /// tar + zstd (the default: fast, and smaller than gzip).
    case zstd = "tar.zst"
    /// tar + gzip, for compatibility.
    case gzip = "tar.gz"

    /// The default compression level: zstd 3, gzip 6 (what `gzip` and `tar -czf` use).
    public var defaultLevel: Int { self == .zstd ? 3 : 6 }
    public var levels: ClosedRange<Int> { self == .zstd ? 1...19 : 1...9 }
}

/// Writes a tar archive (pax) through libarchive, streaming to a file descriptor or to a
/// ``ByteSink`` (an encryptor). Not thread-safe: one writer per task.
public final class ArchiveWriter {
    private let archive: OpaquePointer
    private var closed = false
    /// The sink's callbacks, when writing to one (kept alive as long as libarchive may call them).
    private var box: ArchiveCallbackBox?

    /// Why libarchive is unusable: the loader's `dlerror()` when it could not be loaded.
    static func unavailable(or fallback: String) -> ArchiveError {
        guard let reason = carchive_load_error() else { return .io(fallback) }
        return .libarchiveUnavailable("libarchive.so.13 could not be loaded: \(String(cString: reason))")
    }

    static func noBuiltIn(_ compression: String) -> ArchiveError {
        .libarchiveUnavailable("this machine's libarchive has no built-in \(compression) support, and brados does not run an external \(compression) program instead")
    }

    /// - Throws: ``ArchiveError/io(_:)``, ``ArchiveError/libarchiveUnavailable(_:)``.
    /// - Parameter rawNames: write names as the bytes given, never converted through the
    ///   locale (the tests' hostile names). brados's own names need not: the manifest allows
    ///   only ASCII letters, digits, '.', '_' and '-', which every locale converts, and with
    ///   whole-second times an entry then needs no pax extended header at all (GNU tar warns
    ///   about the `hdrcharset` keyword on every entry that has one).
    public convenience init(fd: Int32, compression: ArchiveCompression, level: Int? = nil) throws {
        try self.init(fd: fd, compression: compression, level: level, rawNames: false)
    }

    /// Writes the compressed archive to `sink` (which sees only compressed bytes).
    /// - Throws: ``ArchiveError/io(_:)``, ``ArchiveError/libarchiveUnavailable(_:)``.
    public convenience init(sink: ByteSink, compression: ArchiveCompression, level: Int? = nil) throws {
        try self.init(fd: nil, sink: sink, compression: compression, level: level, rawNames: false)
    }

    convenience init(fd: Int32, compression: ArchiveCompression, level: Int?, rawNames: Bool) throws {
        try self.init(fd: fd, sink: nil, compression: compression, level: level, rawNames: rawNames)
    }

    private init(fd: Int32?, sink: ByteSink?, compression: ArchiveCompression, level: Int?, rawNames: Bool) throws {
        guard let archive = archive_write_new() else { throw Self.unavailable(or: "libarchive could not start a writer") }
        self.archive = archive
        let level = level ?? compression.defaultLevel
        var status = archive_write_set_format_pax_restricted(archive)
        if status == ARCHIVE_OK, rawNames { status = archive_write_set_format_option(archive, "pax", "hdrcharset", "BINARY") }
        if status == ARCHIVE_OK {
            // ARCHIVE_WARN here means libarchive would run an external `zstd` or `gzip` from
            // PATH (it was built without the library): refused, never done silently.
            status = compression == .zstd ? archive_write_add_filter_zstd(archive) : archive_write_add_filter_gzip(archive)
            if status == ARCHIVE_WARN { throw Self.noBuiltIn(compression.rawValue) }
        }
        if status == ARCHIVE_OK { status = archive_write_set_filter_option(archive, nil, "compression-level", String(level)) }
        // zstd compresses on worker threads while this one reads, hashes and encrypts (the
        // output is the same format; libzstd without threads support just ignores it). Only at
        // fast levels: a worker's job is several MiB, and at level 19 one takes seconds, which a
        // cancelled export (Ctrl-C, SIGTERM) would have to wait for (reliability/signals.py).
        if status == ARCHIVE_OK, compression == .zstd, level <= 9, ProcessInfo.processInfo.activeProcessorCount > 1 {
            _ = archive_write_set_filter_option(archive, nil, "threads", String(min(ProcessInfo.processInfo.activeProcessorCount, 4)))
        }
        // Whole-block padding is for tapes; a file or a pipe needs none.
        if status == ARCHIVE_OK { status = archive_write_set_bytes_in_last_block(archive, 1) }
        if status == ARCHIVE_OK {
            if let fd {
                status = archive_write_open_fd(archive, fd)
            } else if let sink {
                let box = ArchiveCallbackBox(sink: sink)
                self.box = box
                status = archive_write_open(archive, Unmanaged.passUnretained(box).toOpaque(), nil, archiveWriteCallback, nil)
            }
        }
        guard status == ARCHIVE_OK else {
            // `deinit` frees the archive: a throwing initializer of a fully initialized class
            // still runs it (freeing here too was a double free).
            closed = true
            throw ArchiveError.io(Self.message(archive))
        }
    }

    deinit {
        if !closed { archive_write_close(archive) }
        archive_write_free(archive)
    }

    /// Starts a regular-file entry of `size` bytes; its content follows with ``write(_:)``.
    /// - Throws: ``ArchiveError/io(_:)``.
    public func beginFile(path: String, size: Int64, mode: mode_t, modified: Date) throws {
        guard let entry = archive_entry_new() else { throw ArchiveError.io("libarchive could not create an entry") }
        defer { archive_entry_free(entry) }
        // Stored as raw bytes: the pax writer converts UTF-8 names through the locale, and in
        // the C locale a name it cannot convert comes back NULL (a crash inside libarchive).
        archive_entry_copy_pathname(entry, path)
        archive_entry_set_size(entry, size)
        archive_entry_set_filetype(entry, UInt32(CARCHIVE_AE_IFREG))
        archive_entry_set_perm(entry, mode & 0o777)
        // Whole seconds, as ustar stores them: a fraction would need a pax extended header for
        // every entry, and GNU tar warns about that header's `hdrcharset` keyword on each one.
        archive_entry_set_mtime(entry, time_t(modified.timeIntervalSince1970.rounded(.down)), 0)
        guard archive_write_header(archive, entry) == ARCHIVE_OK else { throw failure() }
    }

    /// Writes an entry that is not a regular file (tests build hostile archives with it):
    /// `type` is one of the `CARCHIVE_AE_IF*` types; links carry their target.
    func addSpecialEntry(path: String, type: mode_t, symlink: String? = nil, hardlink: String? = nil, size: Int64 = 0) throws {
        guard let entry = archive_entry_new() else { throw ArchiveError.io("libarchive could not create an entry") }
        defer { archive_entry_free(entry) }
        archive_entry_copy_pathname(entry, path)
        archive_entry_set_filetype(entry, UInt32(type))
        archive_entry_set_perm(entry, 0o644)
        archive_entry_set_size(entry, size)
        if let symlink { archive_entry_copy_symlink(entry, symlink) }
        if let hardlink { archive_entry_copy_hardlink(entry, hardlink) }
        guard archive_write_header(archive, entry) == ARCHIVE_OK else { throw ArchiveError.io(Self.message(archive)) }
    }

    static var regularType: mode_t { CARCHIVE_AE_IFREG }
    static var symlinkType: mode_t { CARCHIVE_AE_IFLNK }
    static var characterDeviceType: mode_t { CARCHIVE_AE_IFCHR }
    static var fifoType: mode_t { CARCHIVE_AE_IFIFO }

    /// Writes content of the current entry.
    /// - Throws: ``ArchiveError/io(_:)``.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        var offset = 0
        while offset < bytes.count {
            let written = archive_write_data(archive, base + offset, bytes.count - offset)
            guard written > 0 else { throw failure() }
            offset += written
        }
    }

    /// Writes a whole small file (e.g. the manifest).
    /// - Throws: ``ArchiveError/io(_:)`` or ``ArchiveError/destinationFull(path:)``; writing to a ``ByteSink``, the error
    ///   that stopped it (as ``beginFile(path:size:mode:modified:)`` and ``write(_:)``).
    public func addFile(path: String, data: Data, mode: mode_t = 0o600, modified: Date) throws {
        try beginFile(path: path, size: Int64(data.count), mode: mode, modified: modified)
        try data.withUnsafeBytes { try write($0) }
    }

    /// Finishes the archive (flushes the compressor).
    /// - Throws: ``ArchiveError/io(_:)``.
    public func finish() throws {
        closed = true
        guard archive_write_close(archive) == ARCHIVE_OK else { throw failure() }
    }

    /// The sink's own error when it stopped the write (a full disk, an encryption failure).
    private func failure() -> any Error {
        if let error = box?.error { return error }
        // Written by libarchive to a pipe whose reader went away (`-o - | head -c 300`).
        if archive_errno(archive) == EPIPE { return ReaderGone() }
        return Self.failure(archive)
    }

    /// A write that failed: a full disk is said as such (the caller names the file).
    static func failure(_ archive: OpaquePointer) -> ArchiveError {
        let code = archive_errno(archive)
        return code == ENOSPC || code == EDQUOT ? .destinationFull(path: nil) : .io(message(archive))
    }

    static func message(_ archive: OpaquePointer) -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "libarchive error \(archive_errno(archive))"
    }
}

/// One entry header read from an archive.
public struct ArchiveEntryHeader: Sendable, Equatable {
    public var path: String
    public var type: ArchiveEntryType
    /// The declared size (`nil` when the header has none).
    public var size: Int64?
    public var mode: mode_t
    /// Set for hard links (their target).
    public var hardlink: String?
    /// Set for symbolic links (their target).
    public var symlink: String?
}

/// Reads a tar archive (plain, gzip or zstd) through libarchive, streaming from a file
/// descriptor or a ``ByteSource`` (a decryptor). Not thread-safe: one reader per task.
public final class ArchiveReader {
    private let archive: OpaquePointer
    private let box: ArchiveCallbackBox

    /// - Throws: ``ArchiveError/io(_:)``.
    public convenience init(fd: Int32) throws {
        try self.init(source: FileDescriptorSource(fd))
    }

    /// - Throws: ``ArchiveError``, or what `source` throws (a decryption failure).
    public init(source: ByteSource) throws {
        box = ArchiveCallbackBox(source: source)
        guard let archive = archive_read_new() else { throw ArchiveWriter.unavailable(or: "libarchive could not start a reader") }
        self.archive = archive
        // Anything but ARCHIVE_OK means no built-in support: libarchive would fall back to an
        // external program from PATH. brados never enables such a filter; an archive that needs
        // it is then refused with the reason.
        var missing: [String] = []
        for (name, enable) in [("gzip", archive_read_support_filter_gzip), ("zstd", archive_read_support_filter_zstd)] {
            let probe = archive_read_new()
            let builtIn = probe.map { enable($0) == ARCHIVE_OK } ?? false
            if let probe { archive_read_free(probe) }
            if builtIn { _ = enable(archive) } else { missing.append(name) }
        }
        archive_read_support_format_tar(archive)
        guard archive_read_open(archive, Unmanaged.passUnretained(box).toOpaque(), nil, archiveReadCallback, nil) == ARCHIVE_OK else {
            if let error = box.error { throw error }
            // `deinit` frees the archive (reliability/hostile_archives.py found the double free
            // that freeing here too caused, with data damaged in its first compressed block).
            if let name = missing.first { throw ArchiveWriter.noBuiltIn(name) }
            throw ArchiveError.notAnArchive(ArchiveWriter.message(archive))
        }
    }

    deinit {
        archive_read_close(archive)
        archive_read_free(archive)
    }

    /// The next entry's header, or `nil` at the end.
    /// - Throws: ``ArchiveError/truncated(_:)`` or ``ArchiveError/notAnArchive(_:)``.
    public func next() throws -> ArchiveEntryHeader? {
        var entry: OpaquePointer?
        let status = archive_read_next_header(archive, &entry)
        if status == ARCHIVE_EOF { return nil }
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else { throw box.error ?? ArchiveError.truncated(ArchiveWriter.message(archive)) }
        let path = archive_entry_pathname_utf8(entry).map { String(cString: $0) }
            ?? archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
        return ArchiveEntryHeader(
            path: path, type: ArchiveEntryType(mode: archive_entry_filetype(entry)),
            size: archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : nil,
            mode: archive_entry_perm(entry),
            hardlink: archive_entry_hardlink(entry).map { String(cString: $0) },
            symlink: archive_entry_symlink(entry).map { String(cString: $0) })
    }

    /// Reads content of the current entry into `buffer`; 0 at its end.
    /// - Throws: ``ArchiveError/truncated(_:)``.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = archive_read_data(archive, buffer.baseAddress, buffer.count)
        guard count >= 0 else { throw box.error ?? ArchiveError.truncated(ArchiveWriter.message(archive)) }
        return count
    }

    /// Compressed bytes consumed so far (for the compression-ratio limit).
    public var compressedBytes: Int64 { archive_filter_bytes(archive, -1) }
}
