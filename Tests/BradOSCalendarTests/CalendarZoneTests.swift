@testable import BradOSCalendar
import BradOSCore
import Foundation
import Testing
import TestSupport

/// Times of day as a calendar expects them wherever it is written: floating, or in a zone with
/// its VTIMEZONE; the days past kept as they were exported.
@Suite("The calendar's zone, and the past it keeps")
struct CalendarZoneTests {
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    func meal(_ day: String, hour: Int, in zone: TimeZone, summary: String = "Breakfast: Oats") -> CalendarEvent {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = CalendarPast.dayComponents(day)
        let start = calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day, hour: hour))!
        return CalendarEvent(uid: "mealplan-\(day)-breakfast@brados", start: start, end: start.addingTimeInterval(1800), summary: summary,
                             changedAt: Date(timeIntervalSince1970: 1_790_000_000), timeOfDay: true)
    }

    @Test("a meal is written at its hour: floating with no zone set, with TZID and a VTIMEZONE whose transitions are the zone's with one")
    func writtenTimes() {
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        let floating = ICalendar.document([meal("2027-03-27", hour: 8, in: tokyo)], product: "t", zone: CalendarZone(days: tokyo, written: nil))
        #expect(floating.contains("\r\nDTSTART:20270327T080000\r\n") && floating.contains("\r\nDTEND:20270327T083000\r\n"))
        #expect(!floating.contains("VTIMEZONE") && !floating.contains("TZID"))
        // Berlin leaves winter time on 2027-03-28 at 02:00 local (01:00 UTC).
        let events = [meal("2027-03-27", hour: 8, in: berlin), meal("2027-03-29", hour: 8, in: berlin)]
        let zoned = ICalendar.document(events, product: "t", zone: CalendarZone(days: berlin, written: berlin), profile: "default")
        #expect(zoned.contains("\r\nDTSTART;TZID=Europe/Berlin:20270327T080000\r\n") && zoned.contains("\r\nDTSTART;TZID=Europe/Berlin:20270329T080000\r\n"))
        #expect(zoned.contains("\r\nX-BRADOS-PROFILE:default\r\n"))
        let zone = zoned.components(separatedBy: "BEGIN:VTIMEZONE\r\n")[1].components(separatedBy: "END:VTIMEZONE")[0]
        #expect(zone.contains("TZID:Europe/Berlin\r\n"))
        #expect(zone.contains("BEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0100\r\n"), "\(zone)")
        #expect(zone.contains("BEGIN:DAYLIGHT\r\nDTSTART:20270328T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\n"), "\(zone)")
        // A visit stays an instant in UTC.
        let visit = CalendarEvent(uid: "visits-v1@brados", start: Date(timeIntervalSince1970: 1_806_000_000), end: Date(timeIntervalSince1970: 1_806_001_800),
                                  summary: "Dentist", changedAt: Date(timeIntervalSince1970: 1_790_000_000))
        #expect(ICalendar.document([visit], product: "t", zone: CalendarZone(days: berlin, written: berlin)).contains("\r\nDTSTART:20270325T184000Z\r\n"))
        #expect(ICalendar.Writer.offset(-12_600) == "-0330" && ICalendar.Writer.offset(19_800) == "+0530")
    }

    @Test("a meal's revision follows its hour, not the instant: the machine's zone moving does not renumber it, a zone written does")
    func revisionsByHour() {
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        let here = CalendarRevisions.hash(meal("2027-01-04", hour: 8, in: berlin), zone: CalendarZone(days: berlin, written: nil))
        let there = CalendarRevisions.hash(meal("2027-01-04", hour: 8, in: tokyo), zone: CalendarZone(days: tokyo, written: nil))
        #expect(here == there, "08:00 floating is 08:00 floating")
        #expect(here != CalendarRevisions.hash(meal("2027-01-04", hour: 8, in: berlin), zone: CalendarZone(days: berlin, written: berlin)))
        #expect(here != CalendarRevisions.hash(meal("2027-01-04", hour: 9, in: berlin), zone: CalendarZone(days: berlin, written: nil)))
    }

    @Test("days past are written as they were exported; today and later follow the cache; a day never seen is taken once; past the window, forgotten")
    func pastStays() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        func day(_ key: String) -> Date { calendar.date(from: CalendarPast.dayComponents(key))! }
        let range = day("2026-11-01")..<day("2026-12-10")
        var record = CalendarPast.Record()
        var plan = "A"
        let events = { (range: Range<Date>) in
            CalendarContribution(events: ["2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03"].map { self.meal($0, hour: 8, in: self.berlin, summary: plan) }
                .filter { range.contains($0.start) }, savedAt: Date())
        }
        // Exported on Dec 1: Nov 30 is past, first seen: taken as it is.
        let first = try CalendarPast.merge(&record, domain: "mealplan", range: range, today: day("2026-12-01"), window: day("2026-11-03"),
                                           calendar: calendar, events: events)
        #expect(first.events.count == 4 && first.events.allSatisfy { $0.summary == "A" })
        // A new plan on Dec 2; exported on Dec 2: Nov 30 and Dec 1 stay A, Dec 2 on are B.
        plan = "B"
        let second = try CalendarPast.merge(&record, domain: "mealplan", range: range, today: day("2026-12-02"), window: day("2026-11-04"),
                                            calendar: calendar, events: events)
        let summaries = Dictionary(uniqueKeysWithValues: second.events.map { ($0.uid, $0.summary) })
        #expect(summaries["mealplan-2026-11-30-breakfast@brados"] == "A" && summaries["mealplan-2026-12-01-breakfast@brados"] == "A")
        #expect(summaries["mealplan-2026-12-02-breakfast@brados"] == "B" && summaries["mealplan-2026-12-03-breakfast@brados"] == "B")
        #expect(second.events.count == 4)
        // A later window forgets Nov 30; its meal is what the cache says again, taken once more.
        _ = try CalendarPast.merge(&record, domain: "mealplan", range: range, today: day("2026-12-05"), window: day("2026-12-01"),
                                   calendar: calendar, events: events)
        #expect(record.domains["mealplan"]?["2026-11-30"] == nil && record.domains["mealplan"]?["2026-12-01"]?.first?.summary == "A")
        // The zone changes (calendar.timezone set): the days kept keep their hour.
        var tokyo = Calendar(identifier: .gregorian)
        tokyo.timeZone = TimeZone(identifier: "Asia/Tokyo")!
        let moved = try CalendarPast.merge(&record, domain: "mealplan", range: range, today: day("2026-12-05"), window: day("2026-12-01"),
                                           calendar: tokyo, events: { _ in CalendarContribution(events: [], savedAt: nil) })
        let kept = try #require(moved.events.first { $0.uid == "mealplan-2026-12-01-breakfast@brados" })
        #expect(tokyo.dateComponents([.hour, .day], from: kept.start) == DateComponents(day: 1, hour: 8))
    }

    @Test("the machine's zone is /etc/localtime's (or /etc/timezone's), never TZ's; UTC when neither names one")
    func machineZone() throws {
        let folder = TemporaryDirectory("calendar-zone")
        let link = folder.path("localtime").path, named = folder.path("timezone").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/share/zoneinfo/Pacific/Auckland")
        #expect(CalendarZone.machineZone(localtime: link, timezone: named).identifier == "Pacific/Auckland")
        try "Europe/Lisbon\n".write(toFile: named, atomically: true, encoding: .utf8)
        #expect(CalendarZone.machineZone(localtime: folder.path("none").path, timezone: named).identifier == "Europe/Lisbon")
        #expect(CalendarZone.machineZone(localtime: folder.path("none").path, timezone: folder.path("none").path).secondsFromGMT() == 0)
        // A relative link, and one naming a zone with a second "zoneinfo/" in it: the first one counts.
        let relative = folder.path("relative").path
        try FileManager.default.createSymbolicLink(atPath: relative, withDestinationPath: "../usr/share/zoneinfo/America/Argentina/Buenos_Aires")
        #expect(CalendarZone.machineZone(localtime: relative, timezone: named).identifier == "America/Argentina/Buenos_Aires")
        #expect(CalendarZone.after("zoneinfo/", in: "/a/zoneinfo/zoneinfo/x") == "zoneinfo/x")
        #expect(CalendarZone.after("zoneinfo/", in: "/usr/share/zoneinfo/") == "" && CalendarZone.after("zoneinfo/", in: "zoneinfo") == nil)
    }
}
