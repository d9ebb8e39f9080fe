import BradOSCore
import Foundation
import Testing
import TestSupport
@testable import Visits

@Suite("Visits in the calendar")
struct VisitsCalendarTests {
    @Test("each cached visit in the range is one event from its time for its duration, with its place, address and notes")
    func events() throws {
        let harness = try CommandHarness(plugins: [VisitsPlugin()]) { _, _ in .json("[]") }
        let (env, _) = try harness.environment()
        let visits = [visit("v1", hoursAgo: 2, place: "Dentist"), visit("v2", hoursAgo: 48), visit("v3", hoursAgo: 400)]
        #expect(try VisitsCache.live(in: env.profile, account: "u1").save(visits, at: Date(timeIntervalSince1970: 1_800_000_000)))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let contribution = try VisitsPlugin().calendarEvents(env, during: now.addingTimeInterval(-72 * 3600)..<now, in: Calendar(identifier: .gregorian))
        #expect(contribution.events.map(\.uid).sorted() == ["visits-v1@brados", "visits-v2@brados"])
        let dentist = try #require(contribution.events.first { $0.uid == "visits-v1@brados" })
        #expect(dentist.start == visits[0].visitedAt && dentist.end == visits[0].visitedAt.addingTimeInterval(1800))
        #expect(dentist.summary == "Dentist" && dentist.location == "1 Main St" && dentist.description?.hasPrefix("notes for v1\n30 min") == true)
        let empty = try CommandHarness(plugins: [VisitsPlugin()]) { _, _ in .json("[]") }
        #expect(try VisitsPlugin().calendarEvents(try empty.environment().env, during: now..<now.addingTimeInterval(1), in: Calendar(identifier: .gregorian)).fill == "brados visits list")
    }
}
