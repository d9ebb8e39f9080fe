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

    public var totalBytes: Int64 { files.reduce(0) { $0 + $1.size } }

    /// Checks everything an importer relies on before any byte is written.
    /// - Throws: ``ArchiveError``.
    public func validate(maxEntries: Int, maxBytes: Int64) throws {
        guard format == Self.formatName else { throw ArchiveError.notBradosArchive("its manifest names the format '\(format)'") }
        guard formatVersion <= Self.currentFormatVersion, formatVersion >= 1 else { throw ArchiveError.unsupportedVersion(formatVersion) }
        guard files.count + 1 <= maxEntries else { throw ArchiveError.tooManyEntries(limit: maxEntries) }
        var seen = Set<String>()
        var total: Int64 = 0
        let domainNames = Set(domains.map(\.name))
        for domain in domains where !Self.isSafeName(domain.name) {
            throw ArchiveError.invalidManifest("the domain name '\(domain.name)' is not allowed")
        }
        for file in files {
            try Self.checkPath(file.path)
            guard seen.insert(file.path).inserted else { throw ArchiveError.duplicateEntry(path: file.path) }
            let parts = file.path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 3, parts[0] == "cache" || parts[0] == "data", parts[1] == file.domain, domainNames.contains(file.domain) else {
                throw ArchiveError.unsafeEntry(path: file.path, reason: "it is not under cache/<domain>/ or data/<domain>/ of a listed domain")
            }
            guard file.size >= 0 else { throw ArchiveError.invalidManifest("'\(file.path)' has a negative size") }
            guard file.sha256.count == 64, file.sha256.allSatisfy(\.isHexDigit) else {
                throw ArchiveError.invalidManifest("'\(file.path)' has no valid SHA-256")
            }
            guard (0...0o777).contains(file.mode) else { throw ArchiveError.invalidManifest("'\(file.path)' has an invalid mode") }
            total += file.size
            guard total <= maxBytes else { throw ArchiveError.tooLarge(limit: maxBytes) }
        }
    }

    /// A relative path with no empty, `.` or `..` component, no NUL and no backslash.
    /// - Throws: ``ArchiveError/unsafeEntry(path:reason:)``.
    public static func checkPath(_ path: String) throws {
        if path.hasPrefix("/") { throw ArchiveError.unsafeEntry(path: path, reason: "it is an absolute path") }
        if path.isEmpty || path.utf8.count > 1024 { throw ArchiveError.unsafeEntry(path: path, reason: "its length is not allowed") }
        if path.contains("\u{0}") || path.contains("\\") { throw ArchiveError.unsafeEntry(path: path, reason: "it contains a NUL or a backslash") }
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            if part == ".." { throw ArchiveError.unsafeEntry(path: path, reason: "it climbs out with '..'") }
            if part.isEmpty || part == "." { throw ArchiveError.unsafeEntry(path: path, reason: "it has an empty or '.' component") }
        }
    }

    static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 || $0 == 95 }
    }
}
