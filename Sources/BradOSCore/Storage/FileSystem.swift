import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Small file-system helpers with brados' permissions (directories 0700, files 0600).
public enum FileSystem {
    /// Creates `url` and missing parents with mode 0700.
    /// - Throws: ``StorageError/io(operation:path:errno:)``.
    public static func createDirectory(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StorageError.io(operation: "create directory", path: url.path, errno: errno == 0 ? EIO : errno)
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
