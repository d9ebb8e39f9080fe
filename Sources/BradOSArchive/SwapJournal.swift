import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
import BradOSTerminal
#endif

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
            for suffix in SQLiteStore.sidecarSuffixes {
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
        // Durably: a journal back after a power cut would undo a committed import.
        if let url { try FileSystem.removeDurably(url) }
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
