import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

// Making room: trimming to a size, evicting the least recently accessed entries, removing
// orphan files, emptying the cache.
extension BlobStore {
    /// Evicts least recently accessed entries until at most `bytes` remain, and removes files the index does not know
    /// (left by a crash).
    /// - Throws: ``StorageError`` when the index cannot be read or written.
    @discardableResult
    public func trim(toBytes bytes: Int64) throws -> BlobTrimReport {
        let evicted: [(bucket: String, name: String, size: Int64)] = try wrap {
            try database.write { db in
                try Self.apply(touches.drain(), db)
                let total = try Int64.fetchOne(db, sql: "SELECT bytes FROM total WHERE id = 1") ?? 0
                guard total > bytes else { return [] }
                let victims = try Self.evict(db, down: total, to: bytes, sparing: nil)
                for victim in victims where Self.isSafe(bucket: victim.bucket, name: victim.name) {
                    unlink(fileURL(bucket: victim.bucket, name: victim.name).path)
                }
                return victims
            }
        }
        memory.removeAll()
        let orphans = try removeOrphanFiles()
        let remaining = try stats().bytes
        return BlobTrimReport(evictedEntries: evicted.count, evictedBytes: evicted.reduce(0) { $0 + $1.size },
                              orphanFilesRemoved: orphans, remainingBytes: remaining)
    }

    /// Removes every entry: the index rows, then each bucket's folder (only folders with plain names).
    /// - Throws: ``StorageError`` when the index cannot be written, ``StorageError/io(operation:path:errno:)`` when a
    ///   folder cannot be removed.
    public func removeAll() throws {
        let buckets = try wrap { try database.write { db -> [String] in
            let buckets = try String.fetchAll(db, sql: "SELECT DISTINCT bucket FROM blob")
            try db.execute(sql: "DELETE FROM blob")
            return buckets
        } }
        memory.removeAll()
        // Only plain names: the index may have come from an archive (a bucket of "../.." is skipped).
        for bucket in Set(buckets + bucketFolders()) where Self.isSafe(bucket: bucket, name: String(repeating: "0", count: 64)) {
            try FileSystem.remove(directory.appendingPathComponent(bucket, isDirectory: true))
        }
        spares.removeAll()
    }

    /// Deletes least recently accessed rows until `total` is at most `target`; returns them.
    static func evict(_ db: Database, down total: Int64, to target: Int64, sparing spared: (String, String)?) throws
        -> [(bucket: String, name: String, size: Int64)] {
        var remaining = total
        var victims: [(bucket: String, name: String, size: Int64)] = []
        let cursor = try Row.fetchCursor(db, sql: "SELECT bucket, name, size FROM blob ORDER BY accessedAt, name")
        while remaining > target, let row = try cursor.next() {
            let victim = (bucket: row["bucket"] as String, name: row["name"] as String, size: row["size"] as Int64)
            if let spared, spared == (victim.bucket, victim.name) { continue }
            victims.append(victim)
            remaining -= victim.size
        }
        for victim in victims {
            try db.execute(sql: "DELETE FROM blob WHERE bucket = ? AND name = ?", arguments: [victim.bucket, victim.name])
        }
        return victims
    }

    private func bucketFolders() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { name in
            guard !name.hasPrefix(".") else { return false }
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }

    /// Removes blob files the index does not know (left by a crash). Files are listed before
    /// the index is read, and anything modified in the last five minutes is spared, so a
    /// write in flight in another process is never taken for an orphan.
    private func removeOrphanFiles() throws -> Int {
        let listed = bucketFolders().map { bucket in
            (bucket, FileSystem.regularFiles(under: directory.appendingPathComponent(bucket, isDirectory: true)))
        }
        let known = try wrap { try database.read { db in
            Set(try Row.fetchAll(db, sql: "SELECT bucket, name FROM blob").map { row -> String in
                let name: String = row["name"]
                return "\(row["bucket"] as String)/\(name.prefix(2))/\(name)"
            })
        } }
        var removed = 0
        let recent = Date().addingTimeInterval(-300)
        for (bucket, files) in listed {
            for file in files where !known.contains("\(bucket)/\(file.relativePath)") && file.modified < recent {
                unlink(file.url.path)
                removed += 1
            }
        }
        return removed
    }
}
