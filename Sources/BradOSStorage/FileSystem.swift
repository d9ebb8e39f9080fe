import CBradOSSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Small file-system helpers with brados' permissions (directories 0700, files 0600).
public enum FileSystem {
    /// Creates `url` and missing parents with mode 0700.
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public static func createDirectory(_ url: URL) throws {
        let path = url.standardizedFileURL.path
        var info = stat()
        if stat(path, &info) == 0 { return try checkExisting(path, info) }
        // Created with its mode, one missing component at a time: never a moment with wider
        // permissions (no mkdir-then-chmod). The folder it is made in must be trustworthy too.
        let parent = url.standardizedFileURL.deletingLastPathComponent()
        if parent.path != path {
            if stat(parent.path, &info) == 0 {
                // Another (non-root) user's folder could swap ours out; a sticky one such as /tmp cannot.
                guard info.st_mode & S_IFMT == S_IFDIR else { throw StorageError.io(operation: "create directory", path: path, errno: ENOTDIR) }
                guard info.st_uid == geteuid() || (info.st_uid == 0 && (info.st_mode & 0o022 == 0 || info.st_mode & S_ISVTX != 0)) else {
                    throw StorageError.notOwned(path: parent.path, owner: info.st_uid)
                }
            } else {
                try createDirectory(parent)
            }
        }
        if mkdir(path, 0o700) != 0 {
            let code = errno
            guard code == EEXIST else { throw StorageError.io(operation: "create directory", path: path, errno: code) }
            // Made meanwhile by another process, or a dangling symbolic link (never recursed into).
            guard stat(path, &info) == 0 else { throw StorageError.io(operation: "create directory", path: path, errno: code) }
            try checkExisting(path, info)
        }
    }

    /// An existing folder brados may use: a directory of this user, or root's when only root
    /// can write it. Another user's folder (say one made in a shared /tmp before brados ran)
    /// is refused.
    private static func checkExisting(_ path: String, _ info: stat) throws {
        guard info.st_mode & S_IFMT == S_IFDIR else { throw StorageError.io(operation: "create directory", path: path, errno: ENOTDIR) }
        let rootOnly = info.st_uid == 0 && info.st_mode & 0o022 == 0
        guard info.st_uid == geteuid() || rootOnly else { throw StorageError.notOwned(path: path, owner: info.st_uid) }
    }

    /// Removes a file or a directory tree; a missing path is not an error.
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public static func remove(_ url: URL) throws {
        guard exists(url) else { return }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw StorageError.io(operation: "remove", path: url.path, errno: errno == 0 ? EIO : errno)
        }
    }

    /// Removes `url` (a file or a folder and everything in it) and makes the removal durable:
    /// its folder is fsynced, so a power cut after it returns never brings the name back. For
    /// what a command acknowledges erasing (a sign-out, an emptied queue, an import's journal).
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public static func removeDurably(_ url: URL) throws {
        guard exists(url) else { return }
        try remove(url)
        AtomicFile.syncDirectory(url.deletingLastPathComponent())
    }

    /// Whether anything (even a dangling symlink) exists at `url`.
    public static func exists(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }

    /// Flushes everything written to the file system that holds `url` — file contents and
    /// folder entries — to the disk (`syncfs(2)`): one call where an `fsync` per extracted file
    /// and folder would be thousands. Since Linux 5.8 it reports a failed write-back.
    ///
    /// On a FUSE file system (a home on sshfs, gocryptfs, rclone) `syncfs` reaches no daemon
    /// (Linux sends FUSE_SYNCFS to virtiofs only): there each file and folder under `url` is
    /// fsynced, and `url`'s folder, which is what reaches the daemon's disk.
    /// - Throws: ``StorageError/io(operation:path:errno:)`` (a full disk as such).
    public static func syncFileSystem(holding url: URL) throws {
        // The nearest folder that exists is on the same file system.
        var path = url
        var fd = open(path.path, O_RDONLY | O_CLOEXEC)
        while fd < 0, errno == ENOENT, path.path != "/" {
            path = path.deletingLastPathComponent()
            fd = open(path.path, O_RDONLY | O_CLOEXEC)
        }
        guard fd >= 0 else { throw StorageError.io(operation: "open", path: url.path, errno: errno) }
        defer { close(fd) }
        if brados_fs_type(fd) == fuseMagic {
            try syncTree(path)
            if path.path != "/" { try syncTree(path.deletingLastPathComponent(), recursive: false) }
            return
        }
        guard brados_syncfs(fd) == 0 else { throw StorageError.io(operation: "write", path: url.path, errno: errno) }
    }

    /// `FUSE_SUPER_MAGIC` (linux/magic.h).
    static let fuseMagic = 0x6573_5546

    /// fsyncs `url` and, for a folder, everything under it (symbolic links are not followed).
    static func syncTree(_ url: URL, recursive: Bool = true) throws {
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT || errno == ELOOP { return }  // gone meanwhile, or a link
            throw StorageError.io(operation: "open", path: url.path, errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StorageError.io(operation: "stat", path: url.path, errno: errno) }
        if recursive, info.st_mode & S_IFMT == S_IFDIR {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [] {
                try syncTree(url.appendingPathComponent(name))
            }
        }
        guard info.st_mode & S_IFMT == S_IFDIR || info.st_mode & S_IFMT == S_IFREG else { return }
        guard fsync(fd) == 0 else { throw StorageError.io(operation: "write", path: url.path, errno: errno) }
    }

    /// Removes `url` if it is an empty folder (a staging root left with nothing in it).
    public static func removeIfEmpty(_ url: URL) {
        _ = rmdir(url.path)
    }

    /// Whether the file system holding `url` (or its nearest existing folder) has less than
    /// `margin` bytes left for this user: how a failed SQLite write is told apart from a
    /// damaged database.
    public static func isFull(at url: URL, margin: UInt64 = 1 << 20) -> Bool {
        var path = url
        var info = statvfs()
        while statvfs(path.path, &info) != 0 {
            guard path.path != "/" else { return false }
            path = path.deletingLastPathComponent()
        }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize) < margin
    }

    /// Which file is at `url` now, as text: its inode, size and modification time. A file
    /// written atomically (a new file each write) has a new identity after every write;
    /// `nil` when there is none.
    public static func identity(of url: URL) -> String? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return "\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    /// Size and modification time of a regular file, or `nil`.
    public static func attributes(of url: URL) -> (size: Int64, modified: Date)? {
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
        return (Int64(info.st_size), modified)
    }

    /// The names in the folder at `url` (no `.` and `..`), unsorted; empty when it cannot be
    /// read. Read with readdir: FileManager's listing costs a start-up a protocol-conformance
    /// scan of the whole binary the first time (bench/RESULTS.md, start-up).
    public static func names(in url: URL) -> [String] {
        guard let directory = opendir(url.path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether `bytes` hold `needle` anywhere: a plain loop over the bytes (Data's own search
    /// is generic over collections, a conformance scan at its first use).
    public static func bytes(_ bytes: Data, contain needle: String) -> Bool {
        let wanted = Array(needle.utf8)
        guard let first = wanted.first else { return true }
        return bytes.withUnsafeBytes { (haystack: UnsafeRawBufferPointer) -> Bool in
            guard haystack.count >= wanted.count else { return false }
            var index = 0
            let last = haystack.count - wanted.count
            while index <= last {
                if haystack[index] == first {
                    var matched = 1
                    while matched < wanted.count && haystack[index + matched] == wanted[matched] { matched += 1 }
                    if matched == wanted.count { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// Every regular file under `root` (not following symlinks), with its path relative to `root`.
    public static func regularFiles(under root: URL) -> [(relativePath: String, url: URL, size: Int64, modified: Date)] {
        guard let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey], options: [])
        else { return [] }
        let rootPath = root.standardizedFileURL.path
        var files: [(String, URL, Int64, Date)] = []
        for case let url as URL in enumerator {
            var info = stat()
            guard lstat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(rootPath + "/") else { continue }
            let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
            files.append((String(path.dropFirst(rootPath.count + 1)), url, Int64(info.st_size), modified))
        }
        return files.sorted { $0.0 < $1.0 }
    }
}
