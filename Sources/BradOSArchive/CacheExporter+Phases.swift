import AgeEncryption
import BradOSCore
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
import BradOSTerminal
#endif

// The phases of an export: list, itemize (hash), write, remember.
extension CacheExporter {
    /// A file to export, as listed: where its bytes are read from (`copy`: an open, unlinked
    /// or in-memory copy, owned by the caller until ``itemize(_:selected:known:)`` moves it).
    typealias Listed = (file: ExportFile, domain: String, source: URL, copy: Int32?)

    /// Phase 1, list: each selected domain's files, in order; databases copied (in memory when
    /// the archive is encrypted, else into `staging` and unlinked at once).
    /// - Throws: ``StorageError``, ``ArchiveError``, `CancellationError`.
    func list(_ selected: [any DomainPlugin], staging: URL, options: Options) throws -> [Listed] {
        var listed: [Listed] = []
        do {
            for plugin in selected {
                let made = staging.appendingPathComponent("made-\(plugin.name)", isDirectory: true)
                try FileSystem.createDirectory(made)
                for (index, file) in try plugin.archive.exportFiles(in: profile, staging: made).enumerated() {
                    try Task.checkCancellation()
                    // Only names every import accepts (files brados did not write are left out).
                    guard (try? CacheArchiveManifest.checkPath(file.archivePath)) != nil else { continue }
                    var source = file.url
                    var copy: Int32?
                    if let contents = file.contents {
                        copy = try Self.memoryFile(contents, name: file.url.lastPathComponent)
                    } else if file.kind == .sqlite, options.encryption != nil {
                        // Encrypted: the copy is made in memory, so no unencrypted byte of it
                        // touches a disk, not even for a moment.
                        guard let fd = try Self.backupInMemory(file.url) else { continue }
                        copy = fd
                    } else if file.kind == .sqlite {
                        source = staging.appendingPathComponent("\(plugin.name)-\(index).sqlite")
                        guard try Self.backup(file.url, to: source) else { continue }
                        // Open and unlinked at once: no plaintext copy of it stays on disk even if
                        // the export is killed from here on.
                        let fd = open(source.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
                        guard fd >= 0 else { throw StorageError.io(operation: "open", path: source.path, errno: errno) }
                        unlink(source.path)
                        copy = fd
                    }
                    listed.append((file, plugin.name, source, copy))
                }
            }
        } catch {
            for entry in listed { if let copy = entry.copy { close(copy) } }
            throw error
        }
        return listed
    }

    /// Phase 2, itemize: every listed file hashed (on every core; settled files from the hash
    /// cache), and the manifest's domains. The copies move from `listed` to the items.
    /// - Throws: ``ArchiveError``, ``StorageError``.
    func itemize(_ listed: inout [Listed], selected: [any DomainPlugin], known: ExportHashMemo) throws -> (items: [Item], domains: [CacheArchiveManifest.Domain]) {
        let hashed = try Self.hashAll(listed.map { ($0.file, $0.domain, $0.source, $0.copy) }, known: known, started: now())
        var items: [Item] = []
        var domains: [CacheArchiveManifest.Domain] = []
        for plugin in selected {
            var count = 0
            var bytes: Int64 = 0
            for (index, entry) in listed.enumerated() where entry.domain == plugin.name {
                // A file gone since it was listed (an evicted artwork) is simply not exported.
                guard var item = hashed[index] else { continue }
                item.unlinkedCopy = entry.copy
                listed[index].copy = nil
                items.append(item)
                count += 1
                bytes += item.size
            }
            domains.append(.init(name: plugin.name, dataVersion: plugin.archive.dataVersion, files: count, bytes: bytes))
        }
        return (items, domains)
    }

    /// Phase 3, write: the manifest, then every file, each checked unchanged since it was
    /// hashed (compressed, and encrypted as it is written when asked).
    /// - Throws: ``ArchiveError/changedDuringExport(path:)``, ``ArchiveError``, `CancellationError`.
    func write(_ items: [Item], manifest: CacheArchiveManifest, to fd: Int32, options: Options, progress: (Int64, Int64) -> Void) throws {
        let total = manifest.totalBytes
        // To a pipe: a reader that goes away is EPIPE (``ReaderGone``), so the staging goes
        // before the process ends by SIGPIPE, rather than the signal ending it mid-write.
        let pipeHandler = fd == STDOUT_FILENO ? signal(SIGPIPE, SIG_IGN) : nil
        defer { if fd == STDOUT_FILENO { signal(SIGPIPE, pipeHandler) } }
        // Encrypted: compress → encrypt → write in one pass; no plaintext byte reaches the disk.
        let encryptor = try options.encryption.map { try AgeEncryptor(recipients: $0.recipients, output: FileDescriptorSink(fd), armor: $0.armor) }
        let writer = try encryptor.map { try ArchiveWriter(sink: $0, compression: options.compression, level: options.level) }
            ?? ArchiveWriter(fd: fd, compression: options.compression, level: options.level)
        let created = now()
        let manifestData: Data
        do { manifestData = try JSONCoding.encode(manifest) } catch {
            throw ArchiveError.invalidManifest("it could not be encoded: \(error)")
        }
        try writer.addFile(path: CacheArchiveManifest.fileName, data: manifestData, modified: created)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var done: Int64 = 0
        for item in items {
            try Task.checkCancellation()
            let fd = item.unlinkedCopy.map { dup($0) } ?? open(item.source.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { throw ArchiveError.changedDuringExport(path: item.file.archivePath) }
            defer { close(fd) }
            if item.unlinkedCopy != nil { lseek(fd, 0, SEEK_SET) }
            var info = stat()
            guard fstat(fd, &info) == 0, Self.sameFile(info, as: item) else { throw ArchiveError.changedDuringExport(path: item.file.archivePath) }
            try writer.beginFile(path: item.file.archivePath, size: item.size, mode: item.mode,
                                 modified: Date(timeIntervalSince1970: TimeInterval(item.modified.tv_sec)))
            var remaining = item.size
            var hasher = SHA256()
            while remaining > 0 {
                try Task.checkCancellation()
                let count = read(fd, buffer.baseAddress, min(buffer.count, Int(remaining)))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw ArchiveError.changedDuringExport(path: item.file.archivePath) }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                if item.rehash { hasher.update(bufferPointer: chunk) }
                try writer.write(chunk)
                remaining -= Int64(count)
                done += Int64(count)
                progress(done, total)
            }
            // Rewritten in place since it was hashed? Then the manifest would lie. A file whose
            // status did not change at all (inode, size, modification and change times), and
            // was last changed well before it was hashed, cannot have been written since (any
            // write moves its change time, which no program can set back); any other is hashed
            // again as it is written (git's "racy" rule).
            guard fstat(fd, &info) == 0, Self.sameFile(info, as: item),
                  !item.rehash || Hex.encode(hasher.finalize()) == item.sha256
            else { throw ArchiveError.changedDuringExport(path: item.file.archivePath) }
        }
        try Task.checkCancellation()
        // With zstd's worker threads most of the compressing happens here, as the jobs drain
        // (0.1-0.2 s for a level 3 export): a signal meanwhile is seen once it returns.
        try writer.finish()
        afterCompression()
        try encryptor?.finish()
        try Task.checkCancellation()
    }

    /// Phase 4, remember: what the next export need not hash again.
    func remember(_ items: [Item], known: ExportHashMemo) {
        // Files read from the profile's folders (not memory copies) that had settled before
        // they were hashed.
        let exported = Set(items.map(\.source.path))
        var settled = ExportHashMemo(entries: known.entries.filter { !exported.contains($0.key) && FileManager.default.fileExists(atPath: $0.key) })
        for item in items where item.unlinkedCopy == nil && !item.rehash {
            settled.entries[item.source.path] = .init(device: item.device, inode: item.inode, size: item.size,
                                                      modified: [item.modified.tv_sec, item.modified.tv_nsec],
                                                      changed: [item.changed.tv_sec, item.changed.tv_nsec], sha256: item.sha256)
        }
        if settled.entries != known.entries { settled.save(profile) }
    }
}
