import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// `manifest.json`, the first entry of every brados cache archive: what the archive holds and
/// how to check it.
public struct CacheArchiveManifest: Codable, Sendable, Equatable {
    public static let fileName = "manifest.json"
    public static let formatName = "brados-cache-archive"
    public static let currentFormatVersion = 1
    /// The largest manifest brados reads.
    public static let maxSize = 32 << 20

    public struct Domain: Codable, Sendable, Equatable {
        public var name: String
        /// The domain's own on-disk format version.
        public var dataVersion: Int
        public var files: Int
        public var bytes: Int64
    }

    public struct File: Codable, Sendable, Equatable {
        /// Relative to the profile: `cache/<domain>/…` or `data/<domain>/…`.
        public var path: String
        public var domain: String
        public var size: Int64
        public var sha256: String
        /// Permission bits, e.g. 384 (0600).
        public var mode: Int
        /// `file`, or `sqlite` for a database copied through SQLite's online backup.
        public var kind: String
    }

    public var format: String
    public var formatVersion: Int
    public var bradosVersion: String
    public var profile: String
    /// The remote account id per service (`api`, `supabase`, …) the data belongs to.
    public var accounts: [String: String]
    public var createdAt: Date
    public var compression: String
    public var domains: [Domain]
    public var files: [File]
    /// `cache export --with-settings`: the configuration values (never a secret: those are
    /// never in the config file); absent otherwise. A brados that does not know it ignores it.
    public var settings: [String: String]? = nil

    /// The most settings a manifest may carry, and the longest key and value.
    public static let maxSettings = 256
    public static let maxSettingLength = 4096

    /// The sum of the file sizes (saturating: only a manifest that passed ``validate(maxEntries:maxBytes:)``
    /// is known to stay below its limit).
    public var totalBytes: Int64 {
        files.reduce(0) { total, file in
            let (sum, overflow) = total.addingReportingOverflow(max(file.size, 0))
            return overflow ? .max : sum
        }
    }

    /// Checks that this brados reads every domain's data of the archive it has a plugin for
    /// (`dataVersions`: the versions each plugin reads); other domains are skipped by an import.
    /// - Throws: ``ArchiveError/otherVersion(what:archive:reads:madeBy:)``.
    public func checkDataVersions(_ dataVersions: [String: ClosedRange<Int>], only chosen: Set<String>? = nil) throws {
        for domain in domains where chosen?.contains(domain.name) ?? true {
            guard let reads = dataVersions[domain.name], !reads.contains(domain.dataVersion) else { continue }
            let nearest = domain.dataVersion > reads.upperBound ? reads.upperBound : reads.lowerBound
            throw ArchiveError.otherVersion(what: domain.name, archive: domain.dataVersion, reads: nearest, madeBy: String(bradosVersion.prefix(40)))
        }
    }

    /// A manifest that does not decode may be a newer brados's: its format version says so.
    static func newerFormat(_ data: Data) -> ArchiveError? {
        struct Header: Decodable { var formatVersion: Int?; var bradosVersion: String? }
        guard let header = try? JSONCoding.decode(Header.self, from: data), let version = header.formatVersion,
              version > currentFormatVersion else { return nil }
        return .otherVersion(what: "format", archive: version, reads: currentFormatVersion, madeBy: String((header.bradosVersion ?? "unknown").prefix(40)))
    }

    /// The most domains a manifest may list.
    public static let maxDomains = 64

    /// Checks everything an importer relies on before any byte is written. One pass over the
    /// files (linear), and total: every size is checked before it is added, so no crafted
    /// manifest can overflow a sum.
    /// - Throws: ``ArchiveError``.
    public func validate(maxEntries: Int, maxBytes: Int64) throws {
        guard format == Self.formatName else { throw ArchiveError.notBradosArchive("its manifest names the format '\(format)'") }
        guard formatVersion <= Self.currentFormatVersion else {
            throw ArchiveError.otherVersion(what: "format", archive: formatVersion, reads: Self.currentFormatVersion, madeBy: String(bradosVersion.prefix(40)))
        }
        guard formatVersion >= 1 else { throw ArchiveError.invalidManifest("its format version \(formatVersion) is not one brados writes") }
        guard files.count < maxEntries else { throw ArchiveError.tooManyEntries(limit: maxEntries) }
        // Shown to the user and recorded as a queued change's origin: a profile name, nothing else.
        guard ProfileName(rawValue: profile) != nil else { throw ArchiveError.invalidManifest("the profile name is not one brados makes") }
        if let settings {
            guard settings.count <= Self.maxSettings, settings.allSatisfy({ $0.key.utf8.count <= 128 && $0.value.utf8.count <= Self.maxSettingLength }) else {
                throw ArchiveError.invalidManifest("its settings are more or longer than brados writes")
            }
        }
        guard domains.count <= Self.maxDomains else { throw ArchiveError.invalidManifest("it lists more than \(Self.maxDomains) domains") }
        var seen = Set<String>()
        var total: Int64 = 0
        for domain in domains where !Self.isSafeName(domain.name) {
            throw ArchiveError.invalidManifest("the domain name '\(domain.name)' is not allowed")
        }
        // Per domain: (files, bytes) found in the file list.
        var found = [String: (files: Int, bytes: Int64)]()
        for domain in domains {
            guard found.updateValue((0, 0), forKey: domain.name) == nil else { throw ArchiveError.invalidManifest("a domain is listed twice") }
        }
        for file in files {
            try Self.checkPath(file.path)
            guard seen.insert(file.path).inserted else { throw ArchiveError.duplicateEntry(path: file.path) }
            let parts = file.path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 3, parts[0] == "cache" || parts[0] == "data", parts[1] == file.domain, found[file.domain] != nil else {
                throw ArchiveError.unsafeEntry(path: file.path, reason: "it is not under cache/<domain>/ or data/<domain>/ of a listed domain")
            }
            if SQLiteStore.isSidecar(file.path) {
                throw ArchiveError.unsafeEntry(path: file.path, reason: "SQLite -wal, -shm and -journal files are never imported")
            }
            guard file.size >= 0 else { throw ArchiveError.invalidManifest("'\(file.path)' has a negative size") }
            guard file.sha256.count == 64, file.sha256.allSatisfy(\.isHexDigit) else {
                throw ArchiveError.invalidManifest("'\(file.path)' has no valid SHA-256")
            }
            guard (0...0o777).contains(file.mode) else { throw ArchiveError.invalidManifest("'\(file.path)' has an invalid mode") }
            // Both are at most maxBytes here, so neither sum can overflow.
            guard file.size <= maxBytes - total else { throw ArchiveError.tooLarge(limit: maxBytes) }
            total += file.size
            found[file.domain]!.files += 1
            found[file.domain]!.bytes += file.size
        }
        for domain in domains {
            let counted = found[domain.name]!
            guard counted.files == domain.files, counted.bytes == domain.bytes else {
                throw ArchiveError.invalidManifest("the counts of domain '\(domain.name)' do not match its files")
            }
        }
    }

    /// A relative path of plain components: each 1-255 bytes of `[A-Za-z0-9._-]`, not
    /// starting with a dot (so no `.`, `..` or hidden names), separated by single `/`.
    /// Checked on bytes, never on Swift `Character`s: a `/` followed by a combining mark is
    /// one Character but still a separator to the kernel.
    /// - Throws: ``ArchiveError/unsafeEntry(path:reason:)``.
    public static func checkPath(_ path: String) throws {
        let bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "/") { throw ArchiveError.unsafeEntry(path: path, reason: "it is an absolute path") }
        if bytes.isEmpty || bytes.count > 1024 { throw ArchiveError.unsafeEntry(path: path, reason: "its length is not allowed") }
        for component in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if component.elementsEqual("..".utf8) { throw ArchiveError.unsafeEntry(path: path, reason: "it climbs out with '..'") }
            if component.isEmpty || component.first == UInt8(ascii: ".") || component.count > 255 {
                throw ArchiveError.unsafeEntry(path: path, reason: "it has an empty, '.' or hidden component")
            }
            guard component.allSatisfy({ isSafeByte($0) }) else {
                throw ArchiveError.unsafeEntry(path: path, reason: "it has characters other than letters, digits, '.', '_' and '-'")
            }
        }
    }


    static func isSafeByte(_ byte: UInt8) -> Bool {
        (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte) || byte == 46 || byte == 95 || byte == 45
    }

    static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 || $0 == 95 }
    }
}
