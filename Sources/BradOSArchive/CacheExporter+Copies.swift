import BradOSCore
import CBradOSSystem
import Foundation
import GRDB
import GRDBSQLite
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

// Copies of what an export reads: databases (a consistent backup) and in-memory files.
extension CacheExporter {
    /// Copies a database through SQLite's online backup; `false` when it no longer exists.
    static func backup(_ source: URL, to destination: URL) throws -> Bool {
        guard FileSystem.exists(source) else { return false }
        do {
            let from = try GRDBReadOnly.open(source, busyTimeout: 30)
            close(open(destination.path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600))
            let to = try DatabaseQueue(path: destination.path)
            try from.backup(to: to)
            try from.close()
            try to.close()
            return true
        } catch let error as DatabaseError {
            throw StorageError.database(error, path: source.path, writing: destination.path)
        }
    }

    /// Copies a database through SQLite's online backup into an anonymous in-memory file
    /// (memfd); `nil` when it no longer exists.
    static func backupInMemory(_ source: URL) throws -> Int32? {
        guard FileSystem.exists(source) else { return nil }
        do {
            let from = try GRDBReadOnly.open(source, busyTimeout: 30)
            let memory = try DatabaseQueue()
            try from.backup(to: memory)
            try from.close()
            return try memory.inDatabase { db in
                var size: sqlite3_int64 = 0
                guard let image = sqlite3_serialize(db.sqliteConnection, "main", &size, 0) else {
                    throw StorageError.io(operation: "serialize", path: source.path, errno: ENOMEM)
                }
                defer { sqlite3_free(image) }
                return try memoryFile(UnsafeRawBufferPointer(start: image, count: Int(size)), name: source.lastPathComponent)
            }
        } catch let error as DatabaseError {
            throw StorageError.database(error, path: source.path, writing: nil)
        }
    }

    /// An anonymous in-memory file (memfd) holding `bytes`.
    static func memoryFile(_ bytes: some ContiguousBytes, name: String) throws -> Int32 {
        let fd = brados_memfd("brados-export-\(name)")
        guard fd >= 0 else { throw StorageError.io(operation: "memfd_create", path: name, errno: errno) }
        // A memfd is made 0777: the mode it is archived with must be a cache file's.
        fchmod(fd, 0o600)
        do {
            try bytes.withUnsafeBytes { try FileDescriptorSink(fd).write($0) }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }
}
