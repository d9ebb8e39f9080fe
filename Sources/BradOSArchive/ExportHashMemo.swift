import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
import BradOSTerminal
#endif

/// The SHA-256 of every file the last export hashed, with the file's status then: a file
/// whose status is the same now (device, inode, size, modification and change times) is not
/// read again to be hashed, as borg's files cache and git's index do. Only files whose last
/// change was at least 2 s before they were hashed are kept (a later write in the same clock
/// tick could otherwise leave the same times), and any write moves a file's change time,
/// which no program can set back. Kept in `<profile cache>/.export-hashes.json`, outside
/// every domain's folder (never exported); a missing or unreadable one is simply empty.
struct ExportHashMemo: Codable, Sendable {
    struct Entry: Codable, Sendable, Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: [Int]
        var changed: [Int]
        var sha256: String
    }

    static let version = 1
    var version = Self.version
    var entries: [String: Entry] = [:]

    static func url(_ profile: ProfileScope) -> URL { profile.cacheDirectory.appendingPathComponent(".export-hashes.json") }

    static func load(_ profile: ProfileScope) -> ExportHashMemo {
        guard let data = try? AtomicFile.readIfPresent(url(profile)),
              let cache = try? JSONCoding.decode(ExportHashMemo.self, from: data), cache.version == version
        else { return ExportHashMemo() }
        return cache
    }

    /// The recorded SHA-256 of `path`, if `info` is exactly the status it was hashed with.
    func sha256(_ path: String, _ info: stat) -> String? {
        guard let entry = entries[path], entry == Self.entry(info, sha256: entry.sha256) else { return nil }
        return entry.sha256
    }

    static func entry(_ info: stat, sha256: String) -> Entry {
        Entry(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
              modified: [info.st_mtim.tv_sec, info.st_mtim.tv_nsec], changed: [info.st_ctim.tv_sec, info.st_ctim.tv_nsec], sha256: sha256)
    }

    /// Written after a successful export; a failure to write it only costs the next export time.
    func save(_ profile: ProfileScope) {
        guard let data = try? JSONCoding.encode(self) else { return }
        try? AtomicFile.write(data, to: Self.url(profile), durable: false, createParents: false)
    }
}
