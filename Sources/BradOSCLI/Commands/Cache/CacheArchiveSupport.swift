import AgeEncryption
import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Helpers shared by the archive commands.
enum CacheArchiveSupport {
    /// The remote account id per service: the account service's, then each service's own.
    static func accounts(_ credentials: CredentialSet) -> [String: String] {
        var accounts: [String: String] = [:]
        if let id = credentials.account?.userID { accounts[Service.account.rawValue] = id }
        for (service, credential) in credentials.services { if let id = credential.userID { accounts[service] = id } }
        return accounts
    }

    /// `<profile folder>/.staging`: inside the profile, so `auth logout` erases whatever a
    /// killed export or import left, and on the same file system as the folders it swaps.
    static func staging(_ profileFolder: URL) -> URL { profileFolder.appendingPathComponent(".staging", isDirectory: true) }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func limits(_ settings: Settings) throws -> ArchiveLimits {
        // Each value passes the rule `config set` applies, or the error names that key and value.
        let bytes = try settings.validated("archive.max-bytes")
        let entries = try settings.validated("archive.max-entries")
        let ratio = try settings.validated("archive.max-ratio")
        return ArchiveLimits(maxBytes: parseByteSize(bytes) ?? 0, maxEntries: Int(entries) ?? 0, maxRatio: Int(ratio) ?? 0)
    }

    /// Opens `path` for reading (`-` is stdin); returns the descriptor and whether to close it.
    static func open(_ path: String) throws -> (Int32, Bool) {
        if path == "-" { return (STDIN_FILENO, false) }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            // The user's own file: never the advice about brados's folders that StorageError gives.
            if errno == ENOENT { throw ArchiveError.noSuchArchive(path: path) }
            throw ArchiveError.io("\(path): \(String(cString: strerror(errno)))")
        }
        return (fd, true)
    }
}
