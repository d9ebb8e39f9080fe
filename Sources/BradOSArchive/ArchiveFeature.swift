import BradOSCore
import BradOSStorage
import CArchive
import CArchiveLoader
import Foundation

/// The archive feature as the core sees it (``Feature``): its settings, the rollback of an
/// import or export a kill interrupted (before any command reads the caches), and libarchive's
/// health for `brados doctor`.
public struct ArchiveFeature: Feature {
    public init() {}

    /// `archive.*`: the limits `cache import` holds an archive to, and the passphrase's work factor.
    public var configKeys: [ConfigKey] {
        [
            ConfigKey(name: "archive.max-bytes", summary: "Largest uncompressed size `cache import` accepts",
                      environmentVariable: "BRADOS_ARCHIVE_MAX_BYTES", defaultValue: "20GB", validate: ConfigKey.sizeValidator),
            ConfigKey(name: "archive.max-entries", summary: "Most entries `cache import` accepts",
                      environmentVariable: "BRADOS_ARCHIVE_MAX_ENTRIES", defaultValue: "200000",
                      validate: { (Int($0) ?? 0) > 0 ? nil : "a positive number" }),
            ConfigKey(name: "archive.max-ratio", summary: "Largest expansion (uncompressed / compressed) `cache import` accepts",
                      environmentVariable: "BRADOS_ARCHIVE_MAX_RATIO", defaultValue: "200",
                      validate: { (Int($0) ?? 0) > 1 ? nil : "a number above 1" }),
            ConfigKey(name: "archive.scrypt-work-factor", summary: "scrypt work factor (log2) of `cache export --passphrase`: 18 takes about a second and 256 MiB",
                      environmentVariable: "BRADOS_ARCHIVE_SCRYPT_WORK_FACTOR", defaultValue: "18",
                      validate: { (10...22).contains(Int($0) ?? 0) ? nil : "a number from 10 to 22 (22 is the most any age tool opens)" }),
        ]
    }

    /// A `cache import` killed mid-swap is rolled back (one `stat` when none was).
    public func recover(_ paths: Paths) -> String? {
        CacheImportRecovery.recoverIfMarked(paths).isEmpty
            ? nil : "rolled back an interrupted cache import; the caches are as they were before it."
    }

    /// `brados doctor`: libarchive, loaded, with built-in zstd.
    public func doctorChecks(_ env: AppEnvironment) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        func add(_ name: String, _ status: DoctorCheck.Status, _ detail: String, fix: String? = nil) {
            checks.append(DoctorCheck(name: name, status: status, detail: detail, fix: fix))
        }
        let version = archive_version_details().map { String(cString: $0) } ?? "unknown"
        var zstd = false
        if let writer = archive_write_new() {
            zstd = archive_write_add_filter_zstd(writer) == ARCHIVE_OK
            archive_write_free(writer)
        }
        if let reason = carchive_load_error() {
            add("libarchive", .fail, "not loaded: \(String(cString: reason))", fix: "Install libarchive (Debian: apt-get install libarchive13).")
        } else {
            add("libarchive", zstd ? .ok : .fail, version + (zstd ? "" : " (no built-in zstd; brados does not run an external zstd)"),
                fix: zstd ? nil : "Install a libarchive built with zstd (Debian: apt-get install libarchive13 libzstd1), or export with --format tar.gz.")
        }
        return checks
    }
}
