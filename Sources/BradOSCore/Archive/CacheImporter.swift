import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Limits that keep a hostile archive from filling the disk (zip-bomb defence).
public struct ArchiveLimits: Sendable, Equatable {
    /// Total uncompressed bytes: 20 GB by default (`archive.max-bytes`).
    public var maxBytes: Int64
    /// Entries, manifest included: 200,000 by default (`archive.max-entries`).
    public var maxEntries: Int
    /// Uncompressed bytes per compressed byte, checked past the first 4 MB: 200 by default (`archive.max-ratio`).
    public var maxRatio: Int

    public init(maxBytes: Int64 = 20_000_000_000, maxEntries: Int = 200_000, maxRatio: Int = 200) {
        self.maxBytes = maxBytes
        self.maxEntries = maxEntries
        self.maxRatio = maxRatio
    }
}

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
            throw ArchiveError.invalidManifest(APIClient.describe(error))
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

/// `brados cache verify`: reads the whole archive and checks every size and checksum.
public struct CacheVerifier: Sendable {
    public struct Report: Codable, Sendable {
        public var profile: String
        public var createdAt: Date
        public var bradosVersion: String
        public var accounts: [String: String]
        public var domains: [CacheArchiveManifest.Domain]
        public var files: Int
        public var bytes: Int64
        /// How the archive is encrypted (`nil`: it is not).
        public var encryption: ArchiveEncryptionInfo?
    }

    public let limits: ArchiveLimits
    public init(limits: ArchiveLimits = ArchiveLimits()) { self.limits = limits }

    /// - Parameter decryption: how to open an encrypted archive (asked only if it is one).
    /// - Throws: ``ArchiveError`` for the first problem found, ``AgeEncryption/AgeError`` for
    ///   an encrypted one that cannot be opened or was changed.
    public func verify(fd: Int32, decryption: ArchiveDecryption? = nil) throws -> Report {
        try verify(try ArchiveInput(fd: fd, decryption: decryption))
    }

    public func verify(_ input: ArchiveInput) throws -> Report {
        let manifest = try ArchiveScan(limits: limits).run(input)
        return Report(profile: manifest.profile, createdAt: manifest.createdAt, bradosVersion: manifest.bradosVersion,
                      accounts: manifest.accounts, domains: manifest.domains, files: manifest.files.count, bytes: manifest.totalBytes,
                      encryption: input.encryption)
    }
}

/// `brados cache import`: safety first, for archives from anyone.
///
/// Every entry is checked (see ``ArchiveScan``) and extracted into staging directories beside
/// the profile's folders; only once the whole archive verified are domains swapped in, each by
/// `rename`. Any failure before or during the swap puts everything back: the existing cache is
/// left exactly as it was. Data of one remote account is never imported into a profile signed
/// in to another unless forced.
public struct CacheImporter: Sendable {
    public enum Mode: String, Sendable, Codable {
        /// The archive's data replaces each imported domain's data.
        case replace
        /// The archive's files are added, overwriting files at the same paths.
        case merge
    }

    public struct Options: Sendable {
        public var mode: Mode?
        public var dryRun: Bool
        public var domains: [String]?
        public var force: Bool
        public var limits: ArchiveLimits
        /// `--discard-pending`: replacing may drop changes the target has not sent yet.
        public var discardPending: Bool

        public init(mode: Mode? = nil, dryRun: Bool = false, domains: [String]? = nil, force: Bool = false, limits: ArchiveLimits = ArchiveLimits(),
                    discardPending: Bool = false) {
            self.discardPending = discardPending
            self.mode = mode
            self.dryRun = dryRun
            self.domains = domains
            self.force = force
            self.limits = limits
        }
    }

    public struct DomainChange: Codable, Sendable, Equatable {
        public var domain: String
        /// `add` (nothing there yet), `replace` or `merge`.
        public var action: String
        public var files: Int
        public var bytes: Int64
        public var existingFiles: Int
        public var existingBytes: Int64
    }

    public struct Report: Codable, Sendable {
        public var profile: String
        public var archiveProfile: String
        public var dryRun: Bool
        public var domains: [DomainChange]
        /// Domains in the archive this brados does not have (or not asked for).
        public var skipped: [String]
    }

    public let target: ProfileScope
    public let plugins: [any DomainPlugin]
    /// The target profile's remote account id per service.
    public let accounts: [String: String]
    /// Roots for staging, on the same file systems as the profile's cache and data folders.
    public let cacheStaging: URL
    public let dataStaging: URL

    public init(target: ProfileScope, plugins: [any DomainPlugin], accounts: [String: String], cacheStaging: URL, dataStaging: URL) {
        self.target = target
        self.plugins = plugins
        self.accounts = accounts
        self.cacheStaging = cacheStaging
        self.dataStaging = dataStaging
    }

    /// Imports (or, with `dryRun`, only checks and describes) the archive read from `fd`, in
    /// four phases: ``validateAndExtract(_:options:into:)`` (one streaming pass: the manifest,
    /// then every entry checked and written to staging), ``describe(_:options:)`` (what would
    /// change), ``check(_:manifest:options:staging:)`` (each domain checks its staged data) and
    /// ``swap(_:options:staging:)`` (journaled renames, all or nothing).
    /// - Throws: ``ArchiveError``, ``StorageError``; the profile is unchanged then.
    public func importArchive(from fd: Int32, options: Options) throws -> Report {
        try importArchive(from: try ArchiveInput(fd: fd, decryption: nil), options: options)
    }

    /// Imports an archive opened with ``ArchiveInput`` (an encrypted one, decrypted as it is read).
    public func importArchive(from input: ArchiveInput, options: Options) throws -> Report {
        let staging = try Staging(cacheStaging: cacheStaging, dataStaging: dataStaging)
        defer { staging.finish() }
        let extracted = try validateAndExtract(input, options: options, into: staging)
        let changes = try describe(extracted, options: options)
        let report = Report(profile: target.name.rawValue, archiveProfile: extracted.manifest.profile, dryRun: options.dryRun,
                            domains: changes, skipped: extracted.skipped)
        let occupied = changes.filter { $0.action != "add" }.map(\.domain)
        if options.mode == nil, !occupied.isEmpty, !options.dryRun { throw ArchiveError.targetNotEmpty(domains: occupied) }
        try Task.checkCancellation()
        try check(changes, manifest: extracted.manifest, options: options, staging: staging)
        // A dry run has now checked what a real import would: nothing moves.
        if options.dryRun { return report }
        // Every extracted and rebuilt file, and its folder, is on the disk before the first
        // rename: after the swap commits, a power cut cannot leave a renamed, empty file.
        try staging.sync()
        // The last point at which an interrupted import (Ctrl-C, SIGTERM, SIGHUP) stops: the
        // swap is short and journaled, and once it starts the import finishes.
        try Task.checkCancellation()
        try swap(changes, options: options, staging: staging)
        return report
    }

    /// This import's private staging folders (under the profile's `.staging`), locked for the
    /// whole import so recovery never touches a live one, and removed at the end unless a
    /// failed swap left the previous data in them.
    final class Staging {
        let cacheRoot: URL
        let dataRoot: URL
        private let locks: [FileLock]
        /// Set when a swap could not be undone: the folders hold the previous data then.
        var keep = false

        init(cacheStaging: URL, dataStaging: URL) throws {
            let token = "import-\(UInt64.random(in: .min ... .max))"
            cacheRoot = cacheStaging.appendingPathComponent(token, isDirectory: true)
            dataRoot = dataStaging.appendingPathComponent(token, isDirectory: true)
            try FileSystem.createDirectory(cacheRoot)
            try FileSystem.createDirectory(dataRoot)
            var locks: [FileLock] = []
            do {
                for folder in [cacheRoot, dataRoot] {
                    let lock = try FileLock(url: folder.appendingPathComponent(".lock"))
                    try lock.lock()
                    locks.append(lock)
                }
            } catch {
                locks.forEach { $0.unlock() }
                try? FileSystem.remove(cacheRoot)
                try? FileSystem.remove(dataRoot)
                throw error
            }
            self.locks = locks
        }

        func cache(_ domain: String) -> URL { cacheRoot.appendingPathComponent(domain, isDirectory: true) }
        func data(_ domain: String) -> URL { dataRoot.appendingPathComponent(domain, isDirectory: true) }

        /// Flushes both sides' file systems (files and folders) to the disk.
        func sync() throws {
            try FileSystem.syncFileSystem(holding: cacheRoot)
            try FileSystem.syncFileSystem(holding: dataRoot)
        }

        func finish() {
            locks.forEach { $0.unlock() }
            if !keep {
                try? FileSystem.remove(cacheRoot)
                try? FileSystem.remove(dataRoot)
                // The `.staging` folders themselves go too once nothing else is in them.
                FileSystem.removeIfEmpty(cacheRoot.deletingLastPathComponent())
                FileSystem.removeIfEmpty(dataRoot.deletingLastPathComponent())
            }
        }
    }

    /// What the first phase found: the manifest, the domains chosen and those skipped.
    struct Extracted {
        var manifest: CacheArchiveManifest
        var chosen: Set<String>
        var skipped: [String]
    }

    /// Phase 1, validate and extract (one pass over the stream): the manifest is checked
    /// (domains asked for, data versions, whose account the data is), then every entry of a
    /// chosen domain is checked and written into staging. A dry run extracts too: the
    /// domains' checks need the files.
    func validateAndExtract(_ input: ArchiveInput, options: Options, into staging: Staging) throws -> Extracted {
        var chosen = Set<String>()
        var skipped: [String] = []
        let manifest = try ArchiveScan(limits: options.limits).run(input, manifestChecked: { manifest in
            let archived = manifest.domains.map(\.name)
            for name in options.domains ?? [] where !archived.contains(name) { throw ArchiveError.unknownDomain(name) }
            for name in archived {
                if plugins.contains(where: { $0.name == name }), options.domains?.contains(name) ?? true { chosen.insert(name) } else { skipped.append(name) }
            }
            // A domain's files are read as its data version says; another version is refused.
            for domain in manifest.domains where chosen.contains(domain.name) {
                let mine = plugins.first { $0.name == domain.name }!.dataVersion
                guard domain.dataVersion == mine else {
                    throw ArchiveError.invalidManifest("the \(domain.name) data is version \(domain.dataVersion), and this brados reads version \(mine)")
                }
            }
            guard !options.force else { return }
            // Every account the target profile is signed in to must be the archive's too: an
            // archive that does not say whose data it holds is not trusted with a signed-in profile.
            for (service, mine) in accounts.sorted(by: { $0.key < $1.key }) where manifest.accounts[service] != mine {
                throw ArchiveError.foreignAccount(service: service, archive: manifest.accounts[service] ?? "no account", profile: target.name.rawValue, target: mine)
            }
        }, destination: { file in
            guard chosen.contains(file.domain) else { return nil }
            let root = file.path.hasPrefix("cache/") ? staging.cacheRoot : staging.dataRoot
            let relative = file.path.split(separator: "/").dropFirst().joined(separator: "/")
            let url = root.appendingPathComponent(relative)
            try FileSystem.createDirectory(url.deletingLastPathComponent())
            let out = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard out >= 0 else { throw StorageError.io(operation: "create", path: url.path, errno: errno) }
            return (out, url.path)
        })
        return Extracted(manifest: manifest, chosen: chosen, skipped: skipped)
    }

    /// Phase 2, describe: per chosen domain, add (nothing there yet), replace or merge, with
    /// the sizes on both sides.
    func describe(_ extracted: Extracted, options: Options) throws -> [DomainChange] {
        try extracted.manifest.domains.filter { extracted.chosen.contains($0.name) }.map { domain in
            let plugin = plugins.first { $0.name == domain.name }!
            let existing = try plugin.stats(in: target)
            // Empty means no file at all, hidden and lock files included.
            let occupied = plugin.folders(in: target).contains { !FileSystem.regularFiles(under: $0).isEmpty } || existing.files > 0
            return DomainChange(domain: domain.name, action: !occupied ? "add" : (options.mode ?? .replace).rawValue, files: domain.files,
                                bytes: domain.bytes, existingFiles: existing.files, existingBytes: existing.bytes)
        }
    }

    /// Phase 3, check: each domain checks its staged data before anything moves (databases
    /// are rebuilt, files it will load decode, its queued changes are kept).
    func check(_ changes: [DomainChange], manifest: CacheArchiveManifest, options: Options, staging: Staging) throws {
        for change in changes {
            let context = ImportContext(archiveProfile: manifest.profile, archiveCreatedAt: manifest.createdAt, target: target,
                                        mode: change.action == "add" || (options.dryRun && options.mode == nil) ? nil : (options.mode ?? .replace),
                                        discardPending: options.discardPending, now: Date())
            try plugins.first { $0.name == change.domain }?.prepareImport(
                cache: staging.cache(change.domain), data: staging.data(change.domain), context: context)
        }
    }

    /// Phase 4, swap: every move journaled before it is made; any failure rolls all of them
    /// back (and a kill is rolled back by ``CacheImportRecovery`` on the next run).
    func swap(_ changes: [DomainChange], options: Options, staging: Staging) throws {
        var journal = SwapJournal(url: staging.dataRoot.appendingPathComponent("journal.json"))
        do {
            for change in changes {
                let pairs = [(staging.cache(change.domain), target.cacheDirectory(for: change.domain), staging.cacheRoot),
                             (staging.data(change.domain), target.dataDirectory(for: change.domain), staging.dataRoot)]
                for (staged, destination, root) in pairs {
                    let trash = root.appendingPathComponent(".replaced-\(change.domain)")
                    if options.mode == .merge {
                        try journal.merge(staged, into: destination, trash: trash)
                    } else {
                        try journal.replace(destination, with: staged, trash: trash)
                    }
                }
            }
            // Domains that keep data outside their folders (the key-value store) load it now,
            // inside the journal: the store's previous file is kept aside and put back by a
            // rollback, or by recovery after a kill.
            try journal.preserve(target.defaultsFile, backup: staging.dataRoot.appendingPathComponent("defaults-before.json"))
            for change in changes {
                try plugins.first { $0.name == change.domain }?.didImport(into: target, replacing: options.mode != .merge)
            }
            // The renames and the store are on the disk before the journal goes.
            try FileSystem.syncFileSystem(holding: target.cacheDirectory.deletingLastPathComponent())
            try FileSystem.syncFileSystem(holding: target.dataDirectory.deletingLastPathComponent())
            try journal.commit()
        } catch {
            if !journal.rollBack() {
                // Something could not be put back: keep the staging folders (they hold the old data).
                staging.keep = true
                throw ArchiveError.io("the import failed (\(error.summaryText)) and could not be fully undone; the previous data is kept in \(staging.cacheRoot.path) and \(staging.dataRoot.path)")
            }
            throw error
        }
    }
}

/// The renames an import made, so a failure can undo them in reverse order.
struct SwapJournal {
    /// The journal file: every move, written durably *before* it is made, so that after a
    /// crash (even SIGKILL) ``CacheImportRecovery`` can put everything back.
    let url: URL?
    private var moves: [(from: URL, to: URL, restore: Bool)] = []

    init(url: URL? = nil) { self.url = url }

    /// A rename (`from` → `to`), or, with `restore`, a file kept aside before it was changed
    /// in place: `to` is the copy of `from` as it was (absent: `from` did not exist).
    struct Record: Codable {
        var from: String
        var to: String
        var restore: Bool? = nil
    }

    /// Moves `destination` aside (if there) and `staged` into its place (if there).
    mutating func replace(_ destination: URL, with staged: URL, trash: URL) throws {
        if FileSystem.exists(destination) { try move(destination, to: trash) }
        if FileSystem.exists(staged) {
            try FileSystem.createDirectory(destination.deletingLastPathComponent())
            try move(staged, to: destination)
        }
    }

    /// Moves each staged file over the file at the same path (the old one aside). A database's
    /// `-wal`, `-shm` and `-journal` files go aside with it: SQLite would replay an old WAL
    /// onto the new database.
    mutating func merge(_ staged: URL, into destination: URL, trash: URL) throws {
        for file in FileSystem.regularFiles(under: staged) {
            let target = destination.appendingPathComponent(file.relativePath)
            let aside = trash.appendingPathComponent(file.relativePath)
            for suffix in ["-wal", "-shm", "-journal"] {
                let sidecar = URL(fileURLWithPath: target.path + suffix)
                guard FileSystem.exists(sidecar) else { continue }
                try FileSystem.createDirectory(aside.deletingLastPathComponent())
                try move(sidecar, to: URL(fileURLWithPath: aside.path + suffix))
            }
            if FileSystem.exists(target) {
                try FileSystem.createDirectory(aside.deletingLastPathComponent())
                try move(target, to: aside)
            }
            try FileSystem.createDirectory(target.deletingLastPathComponent())
            try move(file.url, to: target)
        }
    }

    /// Keeps a copy of `file` (durably) before it is changed in place, so a rollback puts it
    /// back as it was, or removes it if it did not exist.
    mutating func preserve(_ file: URL, backup: URL) throws {
        if let data = try AtomicFile.readIfPresent(file) { try AtomicFile.write(data, to: backup, durable: true) }
        moves.append((file, backup, true))
        try writeJournal()
    }

    private mutating func writeJournal() throws {
        guard let url else { return }
        let records = moves.map { Record(from: $0.from.path, to: $0.to.path, restore: $0.restore ? true : nil) }
        try AtomicFile.write(try JSONCoding.encode(records), to: url, durable: true)
    }

    private mutating func move(_ from: URL, to: URL) throws {
        moves.append((from, to, false))
        try writeJournal()
        guard rename(from.path, to.path) == 0 else {
            let code = errno
            moves.removeLast()
            throw StorageError.io(operation: "rename", path: from.path, errno: code)
        }
    }

    /// Undoes every move, newest first; `false` if one could not be undone.
    mutating func rollBack() -> Bool {
        let complete = Self.undo(moves.map { Record(from: $0.from.path, to: $0.to.path, restore: $0.restore ? true : nil) })
        moves.removeAll()
        if complete, let url { try? FileSystem.remove(url) }
        return complete
    }

    /// The import is complete: the journal goes first (durably), then the caller removes the trash.
    mutating func commit() throws {
        moves.removeAll()
        if let url { try FileSystem.remove(url) }
    }

    /// Undoes recorded moves, newest first. A move that was only intended (its source is still
    /// there) is skipped. Returns whether everything is back.
    static func undo(_ records: [Record]) -> Bool {
        var complete = true
        for record in records.reversed() {
            if record.restore == true {
                // The kept copy goes back over the changed file; no copy: there was no file.
                if FileManager.default.fileExists(atPath: record.to) {
                    if rename(record.to, record.from) != 0 { complete = false }
                } else if unlink(record.from) != 0, errno != ENOENT {
                    complete = false
                }
                continue
            }
            let done = FileManager.default.fileExists(atPath: record.to) && !FileManager.default.fileExists(atPath: record.from)
            guard done else { continue }
            if rename(record.to, record.from) != 0 { complete = false }
        }
        return complete
    }
}

/// Finishes what a killed `cache import` or `cache export` left, in every profile's
/// `.staging` folders (and the shared ones older versions used):
///
/// - an import whose journal still exists and whose lock nobody holds is rolled back, so the
///   profile is exactly as it was before that import. The journal lives in the data side's
///   folder; the cache side's folder of the same import is kept for as long as the journal
///   is (after a failed rollback both hold the previous data, as the error message says);
/// - a killed export's folder (its database copies) is removed.
///
/// Cheap when there is nothing to do (a directory listing per root). Runs when any brados
/// command starts.
public enum CacheImportRecovery {
    /// - Returns: the import folders that were rolled back.
    @discardableResult
    public static func recover(_ paths: Paths) -> [URL] {
        var pairs = [(cache: paths.cacheRoot.appendingPathComponent(".staging", isDirectory: true),
                      data: paths.dataRoot.appendingPathComponent(".staging", isDirectory: true))]
        var profiles = Set<String>()
        for root in [paths.cacheRoot, paths.dataRoot] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("users").path)) ?? [] { profiles.insert(name) }
        }
        for name in profiles.sorted() {
            guard let profile = ProfileName(rawValue: name) else { continue }
            let scope = paths.profile(profile)
            pairs.append((scope.cacheDirectory.appendingPathComponent(".staging", isDirectory: true),
                          scope.dataDirectory.appendingPathComponent(".staging", isDirectory: true)))
        }
        var recovered: [URL] = []
        for pair in pairs {
            recovered += recover(cacheStaging: pair.cache, dataStaging: pair.data)
            FileSystem.removeIfEmpty(pair.cache)
            FileSystem.removeIfEmpty(pair.data)
        }
        return recovered
    }

    static func recover(cacheStaging: URL, dataStaging: URL) -> [URL] {
        let cacheNames = (try? FileManager.default.contentsOfDirectory(atPath: cacheStaging.path)) ?? []
        let dataNames = (try? FileManager.default.contentsOfDirectory(atPath: dataStaging.path)) ?? []
        guard !cacheNames.isEmpty || !dataNames.isEmpty else { return [] }
        var recovered: [URL] = []
        for name in Set(cacheNames + dataNames).sorted() {
            let folders = [dataStaging.appendingPathComponent(name, isDirectory: true), cacheStaging.appendingPathComponent(name, isDirectory: true)]
                .filter { FileManager.default.fileExists(atPath: $0.path) }
            if name.hasPrefix("export-") {
                for folder in folders {
                    guard let lock = try? FileLock(url: folder.appendingPathComponent(".lock")), lock.tryLock() else { continue }
                    try? FileSystem.remove(folder)
                    lock.unlock()
                }
                continue
            }
            guard name.hasPrefix("import-") else { continue }
            // Both sides' locks: an import in progress holds them for its whole run.
            let locks = folders.compactMap { try? FileLock(url: $0.appendingPathComponent(".lock")) }
            guard locks.count == folders.count else { continue }
            var held: [FileLock] = []
            for lock in locks where lock.tryLock() { held.append(lock) }
            defer { held.forEach { $0.unlock() } }
            guard held.count == locks.count else { continue }
            let journal = dataStaging.appendingPathComponent(name, isDirectory: true).appendingPathComponent("journal.json")
            if let data = try? AtomicFile.readIfPresent(journal) {
                guard let records = try? JSONCoding.decode([SwapJournal.Record].self, from: data), SwapJournal.undo(records) else {
                    continue // kept, both sides (they hold data) for the next try
                }
                try? FileSystem.remove(journal)
                recovered.append(dataStaging.appendingPathComponent(name, isDirectory: true))
            }
            // No journal (any more): a finished, undone or never-started import's leftovers.
            for folder in folders { try? FileSystem.remove(folder) }
        }
        return recovered
    }
}
