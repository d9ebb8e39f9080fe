@testable import BradOSCalendar
import BradOSCore
import BradOSStorage
import Foundation
import Testing
import TestSupport

@Suite("SEQUENCE and LAST-MODIFIED: a changed event is an update of the same UID")
struct CalendarRevisionsTests {
    let home = TemporaryDirectory("calendar-revisions")
    var revisions: CalendarRevisions { CalendarRevisions(profile: Paths.resolve(environment: ["BRADOS_HOME": home.url.path]).profile(.default)) }
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func event(_ uid: String, _ summary: String, end: Date? = nil) -> CalendarEvent {
        CalendarEvent(uid: uid, start: (end ?? now).addingTimeInterval(-1800), end: end ?? now, summary: summary, changedAt: now.addingTimeInterval(-86_400))
    }

    @Test("new events start at 0 with their own change time; a change raises SEQUENCE and moves LAST-MODIFIED; the same content keeps both")
    func numbering() throws {
        let first = revisions.number([event("a@brados", "Dentist"), event("b@brados", "Physio")], now: now)
        #expect(first.map(\.sequence) == [0, 0] && first[0].changedAt == now.addingTimeInterval(-86_400))
        let later = now.addingTimeInterval(600)
        let second = revisions.number([event("a@brados", "Dentist, moved"), event("b@brados", "Physio")], now: later)
        #expect(second.map(\.sequence) == [1, 0])
        #expect(second[0].changedAt == later && second[1].changedAt == first[1].changedAt)
        let third = revisions.number([event("a@brados", "Dentist, moved"), event("b@brados", "Physio")], now: later.addingTimeInterval(600))
        #expect(third == second, "nothing changed: the same numbers, the same times")
    }

    @Test("an event that ended over a year ago and is no longer exported is forgotten; a corrupt ledger numbers from 0")
    func forgetting() throws {
        _ = revisions.number([event("old@brados", "Long ago", end: now.addingTimeInterval(-400 * 86_400)), event("new@brados", "Soon")], now: now)
        _ = revisions.number([event("old@brados", "Long ago, edited", end: now.addingTimeInterval(-400 * 86_400))], now: now)
        #expect(revisions.load()["old@brados"]?.sequence == 1)
        _ = revisions.number([event("new@brados", "Soon")], now: now)
        #expect(revisions.load()["old@brados"] == nil && revisions.load()["new@brados"] != nil)
        try Data("not a ledger\n".utf8).write(to: revisions.url)
        #expect(revisions.number([event("new@brados", "Soon, edited")], now: now).first?.sequence == 0)
    }
}

@Suite("The last export kept: written again only while nothing it came from moved")
struct CalendarMemoTests {
    let home = TemporaryDirectory("calendar-memo")
    var memo: CalendarMemo { CalendarMemo(profile: Paths.resolve(environment: ["BRADOS_HOME": home.url.path]).profile(.default)) }
    let range = Date(timeIntervalSince1970: 0)..<Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a hit gives the document and the parts back; another stamp, range or a domain without a stamp is a miss; a torn file is a miss")
    func keys() throws {
        let key = try #require(memo.key([("mealplan", "1:2:3"), ("visits", "4:5:6,u1")], range: range))
        let export = CalendarExport(parts: [.init(domain: "visits", events: 1, savedAt: Date(timeIntervalSince1970: 1_700_000_000), fill: nil)], events: [],
                                    document: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
        let url = memo.url([("mealplan", "1:2:3"), ("visits", "4:5:6,u1")], range: range)
        memo.save(export, key: key, to: url)
        let kept = try #require(memo.load(key: key, from: url))
        #expect(kept.document == export.document && kept.parts.first?.events == 1 && kept.parts.first?.savedAt == export.parts[0].savedAt)
        #expect(memo.load(key: try #require(memo.key([("mealplan", "1:2:3"), ("visits", "4:5:7,u1")], range: range)), from: url) == nil)
        #expect(memo.load(key: try #require(memo.key([("mealplan", "1:2:3"), ("visits", "4:5:6,u1")], range: range.lowerBound..<Date())), from: url) == nil)
        #expect(memo.key([("mealplan", nil)], range: range) == nil)
        try Data(key.utf8).write(to: url)
        #expect(memo.load(key: key, from: url) == nil)
        for day in 1...6 {
            let other = range.lowerBound..<Date(timeIntervalSince1970: Double(day) * 86_400)
            memo.save(export, key: "k\(day)", to: memo.url([("visits", "x")], range: other))
        }
        #expect(FileSystem.regularFiles(under: memo.folder).filter { $0.relativePath.hasPrefix("export-") }.count == CalendarMemo.kept)
    }
}
