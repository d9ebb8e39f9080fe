import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension TimeZone {
    /// The machine's time zone as `TimeZone.current` gives it, asked of Foundation again only
    /// when what it is read from changed: `TZ`, or the file `/etc/localtime` (a link and its
    /// target, by inode and modification time; one stat each). Foundation's `current` reads the
    /// whole environment and the zone's file on every call (about 950,000 instructions, as much
    /// as a warm read's own work), so every time shown to a person goes through this.
    public static var local: TimeZone { LocalTimeZone.current() }
}

enum LocalTimeZone {
    /// What the zone comes from, compared before each answer.
    struct Source: Equatable {
        var tz: String?
        var link: [Int]
        var file: [Int]

        static func now() -> Source {
            func identity(_ info: stat, _ found: Bool) -> [Int] {
                found ? [Int(info.st_dev), Int(info.st_ino), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)] : []
            }
            var link = stat(), file = stat()
            let hasLink = lstat("/etc/localtime", &link) == 0, hasFile = stat("/etc/localtime", &file) == 0
            return Source(tz: getenv("TZ").map { String(cString: $0) }, link: identity(link, hasLink), file: identity(file, hasFile))
        }
    }

    private static let cache = Mutex<(source: Source, zone: TimeZone)?>(nil)

    static func current() -> TimeZone {
        let source = Source.now()
        if let cached = cache.withLock({ $0 }), cached.source == source { return cached.zone }
        let zone = TimeZone.current
        cache.withLock { $0 = (source, zone) }
        return zone
    }
}

/// Gregorian calendars by time zone, made once each: a `Calendar` costs ICU's set-up every time
/// one is made, and each date shown asked for one.
enum GregorianCalendars {
    private static let made = Mutex<[TimeZone: Calendar]>([:])

    static func calendar(in timeZone: TimeZone) -> Calendar {
        if let calendar = made.withLock({ $0[timeZone] }) { return calendar }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        made.withLock { $0[timeZone] = calendar }
        return calendar
    }
}
