import Foundation
#if canImport(Glibc)
import Glibc
import BradOSErrors
import BradOSStorage
import BradOSTerminal
#endif

// The background refresh itself: one at a time per resource, and its failure kept for the next
// read to tell (a detached process has nobody to tell).
extension RefreshStamp {
    /// What the last background refresh of a resource failed with, kept beside its stamp
    /// (`.refresh-stamp….failed`) until one succeeds.
    public struct Failure: Codable, Sendable, Equatable {
        public var at: Date
        /// The error's summary and recovery, as a person reads them.
        public var summary: String
        public var recovery: String?
        /// Its ``FailureKind`` (`authRequired` when the session expired).
        public var kind: String
    }

    var failureURL: URL { url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".failed") }
    var lockURL: URL { url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".lock") }

    /// The last background refresh's failure, when the last one failed.
    public func lastFailure() -> Failure? {
        guard let data = try? AtomicFile.readIfPresent(failureURL) else { return nil }
        return try? JSONCoding.decode(Failure.self, from: data)
    }

    /// Forgets the last failure (a read in the foreground got an answer since).
    public func clearFailure() { try? FileSystem.remove(failureURL) }

    /// Runs a background refresh of the resource: at most one at a time (another already
    /// running leaves it be: it returns at once), its failure recorded for the next read to
    /// tell (``lastFailure()``), a success clearing it. With none of ``profileFolders`` there
    /// (the profile erased meanwhile: a sign-out) it returns without running `body`, and a
    /// failure is not recorded when the resource's own folder was gone as it started: nothing
    /// is written where the person's data was erased.
    /// - Throws: what `body` throws (after recording it); `CancellationError` is not recorded
    ///   (a command that needs the profile stopped it, see ``ProfileLock``).
    public func runBehind(now: @Sendable () -> Date, _ body: () async throws -> Void) async throws {
        guard profileFolders.contains(where: FileSystem.exists) else { return }
        // A refresh that finds its resource's folder gone runs after a sign-out or a clear
        // erased it: its failure is not kept there (the next read says what is missing itself).
        let folderWasThere = FileSystem.exists(url.deletingLastPathComponent())
        try FileSystem.createDirectory(url.deletingLastPathComponent())
        let lock = try FileLock(url: lockURL)
        guard lock.tryLock() else { return }
        defer { lock.unlock() }
        do {
            try await body()
            try? FileSystem.remove(failureURL)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // Stopped (a sign-out, a cache clear), whatever the error it stopped with: not a
            // failure to tell; nor one where the profile was erased meanwhile.
            guard !Task.isCancelled, folderWasThere, profileFolders.contains(where: FileSystem.exists) else { throw error }
            let failure = Failure(at: now(), summary: error.summaryText, recovery: (error as? any BradOSError)?.recovery,
                                  kind: (error as? any BradOSError)?.kind.rawValue ?? FailureKind.general.rawValue)
            if let data = try? JSONCoding.encode(failure) { try? AtomicFile.write(data, to: failureURL) }
            throw error
        }
    }
}
