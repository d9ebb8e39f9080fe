import Foundation
#if canImport(Glibc)
import Glibc
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

    public init(url: URL) { self.url = url }

    /// The stamp of `domain` in `profile`; with `resource`, of one of its resources (a
    /// conversation's messages: `thread-<id>`), which refreshes on its own.
    public static func of(domain: String, resource: String? = nil, in profile: ProfileScope) -> RefreshStamp {
        RefreshStamp(url: profile.cacheDirectory(for: domain).appendingPathComponent(".refresh-stamp" + (resource.map { "-" + $0 } ?? "")))
    }

    /// When the last refresh was started (`nil`: never, or an unreadable stamp).
    public func lastStarted() -> Date? {
        guard let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8),
              let seconds = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), seconds.isFinite
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Claims the next refresh: true (and the stamp says `now`) when none was started in the
    /// last `interval`. A stamp from the future (a clock set back) does not count. False
    /// when another process is claiming it at this moment, or the stamp cannot be written
    /// (a full disk: no refresh could store its answer either).
    public func claim(at now: Date, interval: Duration) -> Bool {
        guard interval > .zero else { return true }
        guard (try? FileSystem.createDirectory(url.deletingLastPathComponent())) != nil else { return false }
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        defer { _ = flock(descriptor, LOCK_UN) }
        if let last = lastStarted() {
            let elapsed = now.timeIntervalSince(last)
            if elapsed >= 0, elapsed < CachePolicy.seconds(interval) { return false }
        }
        let text = String(format: "%.3f\n", now.timeIntervalSince1970)
        guard ftruncate(descriptor, 0) == 0 else { return false }
        let written = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return written == text.utf8.count
    }
}
