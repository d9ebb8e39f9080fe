import BradOSErrors
import Foundation
import GRDB

/// Failures of the storage core: files, locks, key-value store, databases.
public enum StorageError: BradOSError {
    /// A file-system call failed.
    case io(operation: String, path: String, errno: Int32)
    /// Another `brados` process holds a lock for too long.
    case lockTimeout(path: String)
    /// Another brados held the profile for longer than `profile.lock-timeout`.
    /// `exclusive`: the command wanted the profile to itself (an import, a clear, a sign-out).
    case profileBusy(profile: String, holder: ProfileLock.Holder, exclusive: Bool = false)
    /// A value could not be encoded or decoded.
    case coding(path: String, detail: String)
    /// An SQLite database failed.
    case database(path: String, detail: String)
    /// A folder brados would store data in belongs to another user.
    case notOwned(path: String, owner: UInt32)

    public var summary: String {
        switch self {
        case let .io(operation, path, code) where code == ENOSPC || code == EDQUOT:
            "Could not \(operation) \(path): the disk is full (\(String(cString: strerror(code))))."
        case let .io(operation, path, code):
            "Could not \(operation) \(path): \(String(cString: strerror(code)))."
        case let .lockTimeout(path):
            "Timed out waiting for another brados process to release \(path)."
        case let .profileBusy(profile, holder, _):
            "Profile '\(profile)' is busy: \(holder.description) is still \(holder.activity ?? "using it")."
        case let .coding(path, detail):
            "Could not encode or decode \(path): \(detail)."
        case let .database(path, detail):
            "The database \(path) failed: \(detail)."
        case let .notOwned(path, owner):
            "The folder \(path) belongs to another user (uid \(owner)); brados keeps data only in folders of its own user."
        }
    }

    public var recovery: String? {
        switch self {
        case let .io(_, _, code) where code == ENOSPC || code == EDQUOT:
            "Free space on the file system that holds it, then try again; what brados had stored is kept."
        case let .io(_, _, code) where code == EACCES || code == EPERM:
            "Check the permissions of the brados directories (`brados config path`)."
        case .io:
            "Check the brados directories (`brados config path`) and try again."
        case let .profileBusy(_, holder, exclusive) where holder.isWatch:
            // A watch ends only when stopped: say how, and how to wait for it.
            "Stop it (" + (holder.watchUnit.map { "`systemctl --user stop \($0)`" } ?? "Ctrl-C where it runs")
                + "), run this again, then start it again" + (holder.watchUnit.map { " (`systemctl --user start \($0)`)" } ?? "")
                + (exclusive ? "; or add --wait to wait until it has ended." : ".")
        case let .profileBusy(_, _, exclusive):
            "Try again when it has finished" + (exclusive ? ", or add --wait to wait as long as it takes" : "")
                + "; each command waits `profile.lock-timeout` (`brados config set profile.lock-timeout 5m`, or BRADOS_PROFILE_LOCK_TIMEOUT)."
        case .lockTimeout:
            "Wait for the other brados command to finish, then try again."
        case .coding:
            "Report this as a bug; the file was left as it was."
        case .notOwned:
            "Remove or rename that folder if you trust it (or point BRADOS_HOME / XDG_* at a folder of yours), then try again."
        case .database:
            "If it persists, clear that domain's cache (`brados cache clear DOMAIN`); it is rebuilt on demand."
        }
    }

    public var kind: FailureKind {
        switch self {
        case let .io(_, _, code) where code == ENOSPC || code == EDQUOT: .diskFull
        case .lockTimeout, .profileBusy: .busy
        default: .general
        }
    }
    public var isRetryable: Bool {
        switch self {
        case .lockTimeout, .profileBusy: return true
        default: return false
        }
    }

    /// A GRDB failure of the database at `path`. A full disk (`SQLITE_FULL`, or an I/O error
    /// while the file system of `writing` has no room left) is said as such, naming the file
    /// that could not be written, and never as a damaged database to clear.
    /// - Parameter writing: what the failed operation was writing, when not `path` itself
    ///   (a backup's copy).
    public static func database(_ error: DatabaseError, path: String, writing: String? = nil) -> StorageError {
        let target = writing ?? path
        if error.resultCode == .SQLITE_FULL || (error.resultCode == .SQLITE_IOERR && FileSystem.isFull(at: URL(fileURLWithPath: target))) {
            return .io(operation: "write", path: target, errno: ENOSPC)
        }
        return .database(path: path, detail: error.message ?? "\(error.resultCode)")
    }
}
