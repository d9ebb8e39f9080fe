import BradOSCore
import Foundation

/// Where the calendar's days and times of day are read, and how a time of day (a meal) is
/// written: `calendar.timezone`.
///
/// - Unset (the default): meals are *floating* times (RFC 5545 §3.3.5, form 1): `DTSTART:
///   20261201T080000`, breakfast at 08:00 wherever the person is, as a meal plan means it, and
///   the same bytes whoever writes the file. Days (today, the weeks a plan repeats in, the
///   past the calendar keeps) are the machine's: its zone from `/etc/localtime`, never a
///   shell's `TZ`, so `TZ=Asia/Tokyo brados sync` and the watch in UTC write the same file.
/// - An IANA zone (`Europe/Berlin`): meals are written in that zone (`DTSTART;TZID=…`, with a
///   VTIMEZONE), for a calendar shared with people elsewhere or a client that reads floating
///   times badly; days are that zone's.
///
/// Visits are instants either way, written in UTC.
public struct CalendarZone: Sendable, Equatable {
    /// The setting, unset by default (floating meals, the machine's days).
    public static let configKey = ConfigKey(
        name: "calendar.timezone",
        summary: "The zone timed events are written in (e.g. Europe/Berlin); unset: floating times, 08:00 wherever you are, days in the machine's zone",
        validate: { $0.isEmpty || TimeZone(identifier: $0) != nil ? nil : "an IANA time zone such as Europe/Berlin or America/New_York, or unset" })

    /// The zone days are read in.
    public var days: TimeZone
    /// The zone meals are written in; `nil`: floating.
    public var written: TimeZone?

    public init(days: TimeZone, written: TimeZone?) {
        self.days = days
        self.written = written
    }

    /// The profile's: `calendar.timezone`, else floating with the machine's days.
    /// - Throws: ``ConfigError/invalidValue(key:value:expected:)`` for a zone that is not one.
    public static func of(_ settings: Settings) throws -> CalendarZone {
        let name = try settings.validated(configKey.name)
        if !name.isEmpty, let zone = TimeZone(identifier: name) { return CalendarZone(days: zone, written: zone) }
        return CalendarZone(days: machine, written: nil)
    }

    /// The Gregorian calendar of ``days``.
    public var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = days
        return calendar
    }

    /// The machine's zone, as `/etc/localtime` (or `/etc/timezone`) names it: the zone a process
    /// has with no `TZ`; UTC when neither names one.
    public static var machine: TimeZone { machineZone(localtime: "/etc/localtime", timezone: "/etc/timezone") }

    /// What follows the first `marker` in `text`, found byte by byte (Foundation's `range(of:)`
    /// goes through NSString: three conformance scans the first time).
    static func after(_ marker: String, in text: String) -> String? {
        let bytes = Array(text.utf8), wanted = Array(marker.utf8)
        guard !wanted.isEmpty, bytes.count >= wanted.count else { return nil }
        for start in 0...(bytes.count - wanted.count) where bytes[start..<(start + wanted.count)].elementsEqual(wanted) {
            return String(decoding: bytes[(start + wanted.count)...], as: UTF8.self)
        }
        return nil
    }

    static func machineZone(localtime: String, timezone: String) -> TimeZone {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: localtime),
           let name = after("zoneinfo/", in: target), let zone = TimeZone(identifier: name) {
            return zone
        }
        if let text = try? String(contentsOfFile: timezone, encoding: .utf8),
           let zone = TimeZone(identifier: text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            return zone
        }
        return TimeZone(identifier: "UTC")!
    }
}
