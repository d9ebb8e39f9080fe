import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

/// When a domain (or one of its resources) last started a background refresh: a hidden file
/// in its cache folder (`.refresh-stamp`, seconds since 1970), never exported.
///
/// ``CacheReader`` consults it before it starts a detached refresh, so a loop of `visits
/// list` or `library albums` starts at most one refresh per
/// ``CachePolicy/minimumRefreshInterval``, whether the refreshes succeed or fail. Beside it,
/// the refresh's lock and its last failure (``runBehind(now:_:)``). The check and the update happen under a
/// non-blocking lock on the file itself: of two calls at the same moment, one starts the
/// refresh and the other leaves it to it.
public struct RefreshStamp: Sendable, Equatable {
    public let url: URL
    /// The folders of the profile the copy belongs to (its cache and data folders): a refresh
    /// runs only while one of them is there. A sign-out erases them, and a refresh that
    /// started before it writes nothing after it.
    public let profileFolders: [URL]

    /// A stamp at `url`; `profileFolders` default to the stamp's own folder.
    public init(url: URL, profileFolders: [URL]? = nil) {
        self.url = url
        self.profileFolders = profileFolders ?? [url.deletingLastPathComponent()]
    }

    /// The stamp of `domain` in `profile`; with `resource`, of one of its resources (a
    /// conversation's messages: `thread-<id>`, an album's details), which refreshes on its own.
    public static func of(domain: String, resource: String? = nil, in profile: ProfileScope) -> RefreshStamp {
        RefreshStamp(url: profile.cacheDirectory(for: domain).appendingPathComponent(".refresh-stamp" + (resource.map { "-" + $0 } ?? "")),
                     profileFolders: [profile.cacheDirectory, profile.dataDirectory])
    }

    /// When the last refresh was started (`nil`: never, or an unreadable stamp).
    public func lastStarted() -> Date? {
        guard let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8),
              let seconds = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), seconds.isFinite
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// What ``claim(at:interval:)`` came to.
    public enum Claim: Sendable, Equatable {
        /// This call starts the refresh: the stamp says `now`.
        case claimed
        /// One was started less than the interval ago, or another process is claiming it at
        /// this moment: it is under way, or just done.
        case recent
        /// The stamp cannot be written (a full disk, a folder brados cannot write): no
        /// refresh could store its answer either.
        case unwritable
    }

    /// Claims the next refresh: ``Claim/claimed`` (and the stamp says `now`) when none was
    /// started in the last `interval`. A stamp from the future (a clock set back) does not count.
    /// Of two calls at the same moment, one claims it and the other finds it ``Claim/recent``.
    public func claim(at now: Date, interval: Duration) -> Claim {
        guard interval > .zero else { return .claimed }
        guard (try? FileSystem.createDirectory(url.deletingLastPathComponent())) != nil else { return .unwritable }
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return .unwritable }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return .recent }
        defer { _ = flock(descriptor, LOCK_UN) }
        if let last = lastStarted() {
            let elapsed = now.timeIntervalSince(last)
            if elapsed >= 0, elapsed < CachePolicy.seconds(interval) { return .recent }
        }
        let text = String(format: "%.3f\n", now.timeIntervalSince1970)
        guard ftruncate(descriptor, 0) == 0 else { return .unwritable }
        let written = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return written == text.utf8.count ? .claimed : .unwritable
    }
}
