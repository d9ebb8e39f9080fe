@testable import BradOSCalendar
import BradOSCore
import Foundation
import Testing

@Suite("iCalendar text (RFC 5545): escaping, folding, hostile data")
struct ICalendarTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func event(_ summary: String, description: String? = nil) -> CalendarEvent {
        CalendarEvent(uid: "visits-v_1@brados", start: now, end: now.addingTimeInterval(1800), summary: summary,
                      description: description, location: "Riverside; Suite 4, 2nd floor", sequence: 2, changedAt: now)
    }

    @Test("TEXT values escape backslash, semicolon, comma and every line break; other controls never reach the file")
    func text() {
        #expect(ICalendar.text(#"a\b;c,d"#) == #"a\\b\;c\,d"#)
        #expect(ICalendar.text("one\r\ntwo\nthree\rfour") == #"one\ntwo\nthree\nfour"#)
        #expect(ICalendar.text("bell\u{7}tab\tdel\u{7F}c1\u{85}é") == "belltabdelc1é")
        // Unicode's own line breaks are breaks to a reader that splits lines as Python does.
        #expect(ICalendar.text("one\u{2028}two\u{2029}three — ok") == #"one\ntwo\nthree — ok"#)
        #expect(ICalendar.text("a\u{2028}") == #"a\n"#, "a separator at the end of the text")
    }

    @Test("lines fold at 75 octets with a leading space, never inside a character, and end in CRLF")
    func fold() {
        let long = "DESCRIPTION:" + String(repeating: "é", count: 100) + "🍳"
        let folded = ICalendar.fold(long)
        #expect(folded.hasSuffix("\r\n"))
        let lines = String(String.UnicodeScalarView(folded.unicodeScalars.dropLast(2))).components(separatedBy: "\r\n")
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { $0.utf8.count <= 75 }, "\(lines.map(\.utf8.count))")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(" ") })
        #expect(lines.enumerated().map { $0.offset == 0 ? $0.element : String($0.element.dropFirst()) }.joined() == long, "unfolds to the line")
        #expect(ICalendar.fold("SHORT:x") == "SHORT:x\r\n")
    }

    @Test("a note holding END:VCALENDAR, a bare CR or a 100 KB text stays one property of one event")
    func hostile() {
        let note = "fine\rEND:VEVENT\r\nEND:VCALENDAR\nBEGIN:VCALENDAR" + String(repeating: "x", count: 100_000)
        let document = ICalendar.document([event("Dentist", description: note)], product: "brados 0.3.0")
        let unfolded = document.replacingOccurrences(of: "\r\n ", with: "")
        let lines = unfolded.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.filter { $0 == "END:VCALENDAR" }.count == 1 && lines.last == "END:VCALENDAR")
        #expect(lines.filter { $0 == "BEGIN:VEVENT" }.count == 1)
        #expect(!document.replacingOccurrences(of: "\r\n", with: "").contains("\r") && !document.replacingOccurrences(of: "\r\n", with: "").contains("\n"),
                "no line break but CRLF")
        #expect(document.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 75 })
    }

    @Test("the calendar and each event carry what calendars require: VERSION, PRODID, UID, DTSTAMP, SEQUENCE, UTC times")
    func structure() {
        let document = ICalendar.document([event("Dentist")], product: "brados 0.3.0")
        let lines = document.components(separatedBy: "\r\n")
        for required in ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//brados//brados 0.3.0//EN", "CALSCALE:GREGORIAN", "BEGIN:VEVENT",
                         "UID:visits-v_1@brados", "DTSTAMP:20270115T080000Z", "SEQUENCE:2", "DTSTART:20270115T080000Z",
                         "DTEND:20270115T083000Z", "SUMMARY:Dentist", #"LOCATION:Riverside\; Suite 4\, 2nd floor"#, "END:VEVENT"] {
            #expect(lines.contains(required), "\(required)")
        }
        #expect(ICalendar.document([event("Dentist")], product: "x") == ICalendar.document([event("Dentist")], product: "x"),
                "the same data gives the same text")
    }
}
