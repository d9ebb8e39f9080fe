import BradOSCore
import BradOSTerminal
import Foundation

/// iCalendar (RFC 5545) text from events: one VCALENDAR, written where feeds usually break.
/// Lines end in CRLF and are folded at 75 octets without splitting a character (§3.1); TEXT
/// values escape backslash, semicolon, comma and newlines (§3.3.11), and no other control
/// character from the data reaches the file, so a note holding `END:VCALENDAR` or a bare CR
/// stays text; times are UTC (`…Z`, §3.3.5), which every calendar reads without a VTIMEZONE.
/// The same events give the same bytes: with no METHOD, an event's DTSTAMP is when its
/// content last changed (§3.8.7.2), so a file rewritten with nothing new is the file it was.
public enum ICalendar {
    /// The whole document for `events`.
    public static func document(_ events: [CalendarEvent], product: String) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//brados//\(text(product))//EN", "CALSCALE:GREGORIAN",
                     "X-WR-CALNAME:brados"]
        lines.reserveCapacity(events.count * 11 + 6)
        for event in events {
            lines += ["BEGIN:VEVENT",
                      "UID:\(text(event.uid))",
                      "DTSTAMP:\(time(event.changedAt))",
                      "LAST-MODIFIED:\(time(event.changedAt))",
                      "SEQUENCE:\(max(event.sequence, 0))",
                      "DTSTART:\(time(event.start))",
                      "DTEND:\(time(event.end))",
                      "SUMMARY:\(text(event.summary))"]
            if let description = event.description { lines.append("DESCRIPTION:\(text(description))") }
            if let location = event.location { lines.append("LOCATION:\(text(location))") }
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return lines.map(fold).joined()
    }

    /// A TEXT value (§3.3.11): `\\`, `\;`, `\,`, and `\n` for any line break (CRLF, LF or a bare
    /// CR); other control characters are dropped.
    public static func text(_ value: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(value.unicodeScalars.count)
        var previous: Unicode.Scalar?
        for scalar in value.unicodeScalars {
            defer { previous = scalar }
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": if previous != "\r" { out += "\\n" }
            case "\r": out += "\\n"
            default:
                // C0 controls (tab included: it would end nothing, but no calendar needs it), DEL, C1.
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// One content line, folded: at most 75 octets a line, continuation lines starting with a
    /// space, never inside a character's UTF-8 sequence; each line ends in CRLF.
    public static func fold(_ line: String) -> String {
        var out = String.UnicodeScalarView()
        var width = 0
        for scalar in line.unicodeScalars {
            let octets = UTF8.width(scalar)
            if width + octets > 75 {
                out.append(contentsOf: "\r\n ".unicodeScalars)
                width = 1
            }
            out.append(scalar)
            width += octets
        }
        return String(out) + "\r\n"
    }

    /// A UTC DATE-TIME (§3.3.5, form 2), to the second: `20261129T083000Z`. The basic form of
    /// brados's one timestamp format (`JSONCoding.string(from:)`).
    public static func time(_ date: Date) -> String {
        let whole = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        let extended = JSONCoding.string(from: whole)  // 2026-11-29T08:30:00.000Z
        return String(extended.prefix(19).filter { $0 != "-" && $0 != ":" }) + "Z"
    }
}
