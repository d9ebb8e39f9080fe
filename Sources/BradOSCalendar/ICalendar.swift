import BradOSCore
import BradOSTerminal
import Foundation

/// iCalendar (RFC 5545) text from events: one VCALENDAR, written where feeds usually break.
/// Lines end in CRLF and are folded at 75 octets without splitting a character (§3.1); TEXT
/// values escape backslash, semicolon, comma and newlines (§3.3.11), and no other control
/// character from the data reaches the file, so a note holding `END:VCALENDAR` or a bare CR
/// stays text. An instant (a visit) is UTC (`…Z`, §3.3.5); a time of day (a meal) is floating
/// (`20261201T080000`: that hour wherever the reader is) or, with `calendar.timezone`, in that
/// zone (`;TZID=Europe/Berlin:…`, its VTIMEZONE written from the zone's own transitions).
/// The same events give the same bytes: with no METHOD, an event's DTSTAMP is when its
/// content last changed (§3.8.7.2), so a file rewritten with nothing new is the file it was.
/// `X-BRADOS-PROFILE` names the profile whose caches it holds (`calendar.file` is one's).
/// Written as UTF-8 bytes, escaped and folded in one pass (a thousand visits' notes are text
/// to copy, not characters to build).
public enum ICalendar {
    /// The line naming the profile whose caches a document holds.
    public static let profileProperty = "X-BRADOS-PROFILE"

    /// The whole document for `events`; times of day in `zone`, the profile named when given.
    public static func document(_ events: [CalendarEvent], product: String, zone: CalendarZone? = nil, profile: String? = nil) -> String {
        var writer = Writer()
        writer.bytes.reserveCapacity(events.count * 400 + 200)
        writer.line("BEGIN:VCALENDAR")
        writer.line("VERSION:2.0")
        writer.property("PRODID", "-//brados//" + product.replacingOccurrences(of: "//", with: "/") + "//EN")
        writer.line("CALSCALE:GREGORIAN")
        writer.line("X-WR-CALNAME:brados")
        if let profile { writer.property(profileProperty, profile) }
        let days = zone?.days ?? TimeZone(identifier: "UTC")!
        let written = zone?.written
        if let written, let first = events.lazy.filter(\.timeOfDay).map(\.start).min(),
           let last = events.lazy.filter(\.timeOfDay).map(\.end).max() {
            writer.timeZone(written, from: first, to: last)
        }
        for event in events {
            writer.line("BEGIN:VEVENT")
            writer.property("UID", event.uid)
            writer.timeLine("DTSTAMP:", event.changedAt)
            writer.timeLine("LAST-MODIFIED:", event.changedAt)
            writer.line("SEQUENCE:\(max(event.sequence, 0))")
            if event.timeOfDay {
                writer.localTimeLine("DTSTART", event.start, in: days, named: written?.identifier)
                writer.localTimeLine("DTEND", event.end, in: days, named: written?.identifier)
            } else {
                writer.timeLine("DTSTART:", event.start)
                writer.timeLine("DTEND:", event.end)
            }
            writer.property("SUMMARY", event.summary)
            if let description = event.description { writer.property("DESCRIPTION", description) }
            if let location = event.location { writer.property("LOCATION", location) }
            writer.line("END:VEVENT")
        }
        writer.line("END:VCALENDAR")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A TEXT value (§3.3.11): `\\`, `\;`, `\,`, and `\n` for any line break (CRLF, LF, a bare
    /// CR, U+2028, U+2029); other control characters (C0, DEL, C1) are dropped.
    public static func text(_ value: String) -> String {
        var writer = Writer()
        writer.width = .min  // no folding
        writer.escaped(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// One content line, folded: at most 75 octets a line, continuation lines starting with a
    /// space, never inside a character's UTF-8 sequence; each line ends in CRLF.
    public static func fold(_ line: String) -> String {
        var writer = Writer()
        writer.line(line)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Content lines as bytes, folded as they are written.
    struct Writer {
        var bytes: [UInt8] = []
        /// Octets on the current line so far (`Int.min`: never fold).
        var width = 0

        /// `NAME:` and `value` as TEXT, then the line's end.
        mutating func property(_ name: String, _ value: String) {
            append(name)
            append(":")
            escaped(value)
            end()
        }

        /// A line whose text needs no escaping (a name and a value brados made).
        mutating func line(_ text: String) {
            append(text)
            end()
        }

        /// `NAME:` and a UTC time (short lines: never folded).
        mutating func timeLine(_ name: StaticString, _ date: Date) {
            name.withUTF8Buffer { bytes.append(contentsOf: $0) }
            time(date)
            end()
        }

        /// `NAME:` (or `NAME;TZID=zone:`) and the local time of `date` in `zone`: floating
        /// (§3.3.5 form 1) without a zone name, form 3 with one.
        mutating func localTimeLine(_ name: String, _ date: Date, in zone: TimeZone, named: String?) {
            append(name)
            if let named {
                append(";TZID=")
                append(named)
            }
            append(":")
            time(date.addingTimeInterval(TimeInterval(zone.secondsFromGMT(for: date))), utc: false)
            end()
        }

        /// The VTIMEZONE of `zone` for events from `start` to `end` (§3.6.5): the observance in
        /// effect before them, then each transition the zone makes until they end, each a
        /// single onset (no RRULE: the zone's own rules, read from the system's database).
        mutating func timeZone(_ zone: TimeZone, from start: Date, to end: Date) {
            line("BEGIN:VTIMEZONE")
            property("TZID", zone.identifier)
            var previous = zone.secondsFromGMT(for: start)
            observance(zone, at: Date(timeIntervalSince1970: 0), from: previous, to: previous, daylight: zone.isDaylightSavingTime(for: start),
                       name: zone.abbreviation(for: start))
            var cursor = start
            while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next <= end {
                let offset = zone.secondsFromGMT(for: next)
                // Its onset is written in the local time of the offset before it (§3.8.2.4).
                observance(zone, at: next.addingTimeInterval(TimeInterval(previous)), from: previous, to: offset,
                           daylight: zone.isDaylightSavingTime(for: next), name: zone.abbreviation(for: next))
                previous = offset
                cursor = next
            }
            line("END:VTIMEZONE")
        }

        private mutating func observance(_ zone: TimeZone, at local: Date, from: Int, to: Int, daylight: Bool, name: String?) {
            line(daylight ? "BEGIN:DAYLIGHT" : "BEGIN:STANDARD")
            append("DTSTART:")
            time(local, utc: false)
            end()
            line("TZOFFSETFROM:" + Self.offset(from))
            line("TZOFFSETTO:" + Self.offset(to))
            if let name { property("TZNAME", name) }
            line(daylight ? "END:DAYLIGHT" : "END:STANDARD")
        }

        /// A UTC offset as §3.3.14 writes it: `+0100`, `-0330`, `+053245`.
        static func offset(_ seconds: Int) -> String {
            let sign = seconds < 0 ? "-" : "+"
            let value = abs(seconds)
            let (hours, minutes, rest) = (value / 3600, value / 60 % 60, value % 60)
            return sign + String(format: "%02d%02d", hours, minutes) + (rest == 0 ? "" : String(format: "%02d", rest))
        }

        /// A UTC DATE-TIME (§3.3.5, form 2), to the second: `20261129T083000Z`, from brados's one
        /// conversion of a date to UTC fields (``JSONCoding/UTCTime``); a date outside years
        /// 0-9999 is its nearest, 0000 or 9999. With `utc: false` the fields are written as
        /// they are, with no `Z` (a local time the caller shifted).
        mutating func time(_ date: Date, utc: Bool = true) {
            let seconds = date.timeIntervalSince1970.rounded(.down)  // to the second, never rounded up
            let utcTime = JSONCoding.UTCTime(Date(timeIntervalSince1970: seconds))
                ?? JSONCoding.UTCTime(Date(timeIntervalSince1970: seconds < 0 ? -62_167_219_200 : 253_402_300_799))!
            digits(utcTime.year, 4)
            digits(utcTime.month, 2)
            digits(utcTime.day, 2)
            bytes.append(UInt8(ascii: "T"))
            digits(utcTime.hour, 2)
            digits(utcTime.minute, 2)
            digits(utcTime.second, 2)
            if utc { bytes.append(UInt8(ascii: "Z")) }
            if width != .min { width += utc ? 16 : 15 }
        }

        mutating func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(48 + rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }

        mutating func end() {
            bytes.append(13)
            bytes.append(10)
            if width != .min { width = 0 }
        }

        mutating func append(_ text: String) {
            var text = text
            text.withUTF8 { utf8 in
                // The common case: the text fits on the line as it is (or the line is never folded).
                if width == .min || width + utf8.count <= 75 {
                    bytes.append(contentsOf: utf8)
                    if width != .min { width += utf8.count }
                    return
                }
                var index = 0
                while index < utf8.count {
                    let characterWidth = Self.width(utf8, at: index)
                    for offset in 0..<characterWidth where index + offset < utf8.count {
                        put(utf8[index + offset], starts: offset == 0, width: characterWidth)
                    }
                    index += characterWidth
                }
            }
        }

        /// One octet; at the start of a character, a fold first when the character would pass 75 octets.
        @inline(__always)
        mutating func put(_ byte: UInt8, starts: Bool, width characterWidth: Int) {
            if starts, width != .min, width + characterWidth > 75 {
                bytes.append(13)
                bytes.append(10)
                bytes.append(32)
                width = 1
            }
            bytes.append(byte)
            if width != .min { width += 1 }
        }

        /// `value` escaped as TEXT, folded.
        mutating func escaped(_ value: String) {
            var value = value
            value.withUTF8 { utf8 in
                var index = 0
                let count = utf8.count
                while index < count {
                    let byte = utf8[index]
                    switch byte {
                    case UInt8(ascii: "\\"), UInt8(ascii: ";"), UInt8(ascii: ","):
                        put(UInt8(ascii: "\\"), starts: true, width: 2)
                        put(byte, starts: false, width: 0)
                    case 13, 10:
                        put(UInt8(ascii: "\\"), starts: true, width: 2)
                        put(UInt8(ascii: "n"), starts: false, width: 0)
                        if byte == 13, index + 1 < count, utf8[index + 1] == 10 { index += 1 }  // CRLF is one break
                    case 0..<32, 127:
                        break  // other C0 controls and DEL never reach the file
                    case 0xE2 where index + 2 < count && utf8[index + 1] == 0x80 && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
                        // LINE SEPARATOR and PARAGRAPH SEPARATOR are line breaks to a reader that
                        // splits lines as Unicode does (vdirsyncer's): `\n`, as any other break.
                        put(UInt8(ascii: "\\"), starts: true, width: 2)
                        put(UInt8(ascii: "n"), starts: false, width: 0)
                        index += 2
                    case 0xC2 where index + 1 < count && utf8[index + 1] >= 0x80 && utf8[index + 1] <= 0x9F:
                        index += 1  // a C1 control (U+0080–U+009F)
                    case 32..<127 where width != .min:
                        // A run of plain ASCII: copied in pieces that fill the line, not octet by octet.
                        var end = index + 1
                        while end < count, utf8[end] >= 32, utf8[end] < 127, !Self.escapes(utf8[end]) { end += 1 }
                        var from = index
                        while from < end {
                            if width >= 75 {
                                bytes.append(13)
                                bytes.append(10)
                                bytes.append(32)
                                width = 1
                            }
                            let take = min(end - from, 75 - width)
                            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[from..<(from + take)]))
                            width += take
                            from += take
                        }
                        index = end
                        continue
                    default:
                        let characterWidth = Self.width(utf8, at: index)
                        for offset in 0..<characterWidth where index + offset < count {
                            put(utf8[index + offset], starts: offset == 0, width: characterWidth)
                        }
                        index += characterWidth
                        continue
                    }
                    index += 1
                }
            }
        }

        /// `\\`, `;` and `,`: escaped in TEXT.
        @inline(__always)
        static func escapes(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "\\") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: ",") }

        /// The octets of the UTF-8 character that starts at `index` (1 for a continuation octet).
        static func width(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
            let byte = utf8[index]
            switch byte {
            case 0xF0...: return 4
            case 0xE0...: return 3
            case 0xC0...: return 2
            default: return 1
            }
        }
    }
}
