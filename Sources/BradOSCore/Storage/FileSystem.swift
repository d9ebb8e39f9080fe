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
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw StorageError.io(operation: "create directory", path: path, errno: ENOTDIR) }
            // A folder someone else made (say in a shared /tmp, before brados ran) is not used.
            guard info.st_uid == geteuid() else { throw StorageError.notOwned(path: path, owner: info.st_uid) }
            return
        }
        // Created with its mode, one missing component at a time: never a moment with wider
        // permissions (no mkdir-then-chmod), and a component that appears meanwhile is fine.
        let parent = url.standardizedFileURL.deletingLastPathComponent()
        if parent.path != path, stat(parent.path, &info) != 0 { try createDirectory(parent) }
        if mkdir(path, 0o700) != 0 {
            let code = errno
            guard code == EEXIST else { throw StorageError.io(operation: "create directory", path: path, errno: code) }
            try createDirectory(url)
        }
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

    /// Whether anything (even a dangling symlink) exists at `url`.
    public static func exists(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }

    /// Size and modification time of a regular file, or `nil`.
    public static func attributes(of url: URL) -> (size: Int64, modified: Date)? {
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
        return (Int64(info.st_size), modified)
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
