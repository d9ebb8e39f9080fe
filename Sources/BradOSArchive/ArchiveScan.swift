import BradOSCore
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
#endif

/// Reads a brados cache archive from start to end, checking everything: the manifest first
/// (format, version, safe paths, limits), then each entry (a regular file listed in the
/// manifest, once, never a link, device or FIFO; within the size, total, count and ratio
/// limits; matching its size and SHA-256), then that nothing listed is missing.
struct ArchiveScan {
    let limits: ArchiveLimits

    /// - Parameters:
    ///   - manifestChecked: called once the manifest is valid, before any file is read.
    ///   - destination: a descriptor to write a listed file to and the path it writes (for
    ///     errors: a full disk names the file on the disk), or `nil` to only check it.
    /// - Returns: the manifest.
    func run(_ input: ArchiveInput, manifestChecked: (CacheArchiveManifest) throws -> Void = { _ in },
             destination: (CacheArchiveManifest.File) throws -> (fd: Int32, path: String)? = { _ in nil }) throws -> CacheArchiveManifest {
        let reader = try ArchiveReader(source: input.source)
        guard let first = try reader.next() else { throw ArchiveError.notBradosArchive("it is empty") }
        guard first.path == CacheArchiveManifest.fileName, first.type == .regular, first.hardlink == nil else {
            throw ArchiveError.notBradosArchive("its first entry is '\(first.path)', not \(CacheArchiveManifest.fileName)")
        }
        let manifestData = try readAll(reader, limit: CacheArchiveManifest.maxSize)
        let manifest: CacheArchiveManifest
        do { manifest = try JSONCoding.decode(CacheArchiveManifest.self, from: manifestData) } catch {
            throw CacheArchiveManifest.newerFormat(manifestData) ?? ArchiveError.invalidManifest(APIClient.describe(error))
        }
        try manifest.validate(maxEntries: limits.maxEntries, maxBytes: limits.maxBytes)
        try manifestChecked(manifest)

        let listed = Dictionary(manifest.files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        var entries = 1
        var uncompressed = Int64(manifestData.count)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while let header = try reader.next() {
            try Task.checkCancellation()
            entries += 1
            guard entries <= limits.maxEntries else { throw ArchiveError.tooManyEntries(limit: limits.maxEntries) }
            try CacheArchiveManifest.checkPath(header.path)
            switch header.type {
            case .regular where header.hardlink == nil: break
            case .regular, .hardlinkOrOther: throw ArchiveError.unsafeEntry(path: header.path, reason: "it is a hard link")
            case .symlink: throw ArchiveError.unsafeEntry(path: header.path, reason: "it is a symbolic link")
            case .directory: throw ArchiveError.unsafeEntry(path: header.path, reason: "it is a directory entry")
            case .characterDevice, .blockDevice: throw ArchiveError.unsafeEntry(path: header.path, reason: "it is a device")
            case .fifo: throw ArchiveError.unsafeEntry(path: header.path, reason: "it is a FIFO")
            case .socket: throw ArchiveError.unsafeEntry(path: header.path, reason: "it is a socket")
            }
            if header.path == CacheArchiveManifest.fileName { throw ArchiveError.duplicateEntry(path: header.path) }
            guard let file = listed[header.path] else { throw ArchiveError.unlistedEntry(path: header.path) }
            guard seen.insert(header.path).inserted else { throw ArchiveError.duplicateEntry(path: header.path) }
            if let size = header.size, size != file.size { throw ArchiveError.sizeMismatch(path: file.path, expected: file.size, actual: size) }
            let output = try destination(file)
            defer { if let output { close(output.fd) } }
            var hasher = SHA256()
            var size: Int64 = 0
            while true {
                try Task.checkCancellation()
                let count = try reader.read(into: buffer)
                if count == 0 { break }
                size += Int64(count)
                uncompressed += Int64(count)
                guard size <= file.size else { throw ArchiveError.sizeMismatch(path: file.path, expected: file.size, actual: size) }
                guard uncompressed <= limits.maxBytes else { throw ArchiveError.tooLarge(limit: limits.maxBytes) }
                if uncompressed > 4 << 20, uncompressed > max(reader.compressedBytes, 1) * Int64(limits.maxRatio) {
                    throw ArchiveError.compressionRatio(limit: limits.maxRatio)
                }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                hasher.update(bufferPointer: chunk)
                if let output { try Self.writeAll(chunk, to: output.fd, path: output.path) }
            }
            guard size == file.size else { throw ArchiveError.sizeMismatch(path: file.path, expected: file.size, actual: size) }
            guard Hex.encode(hasher.finalize()) == file.sha256.lowercased() else { throw ArchiveError.checksumMismatch(path: file.path) }
        }
        if let missing = manifest.files.map(\.path).first(where: { !seen.contains($0) }) { throw ArchiveError.missingEntry(path: missing) }
        try input.finish()
        return manifest
    }

    private func readAll(_ reader: ArchiveReader, limit: Int) throws -> Data {
        var data = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { return data }
            guard data.count + count <= limit else { throw ArchiveError.invalidManifest("it is larger than \(Format.bytes(Int64(limit)))") }
            data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw StorageError.io(operation: "write", path: path, errno: errno) }
            offset += written
        }
    }
}
