import Foundation
import Testing
import TestSupport

/// `brados calendar` and `calendar.file` end to end: the built `brados` against a
/// `brados-server` process, in a time zone of its own.
@Suite("End to end: calendar", .serialized)
struct CalendarEndToEndTests {
    let home = TemporaryDirectory("e2e-calendar")

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: ["BRADOS_HOME": home.url.path, "HOME": home.url.path,
                                                                 "BRADOS_SERVER": server.url.absoluteString, "TZ": "America/New_York"], stdin: stdin)
    }

    /// The VEVENTs of a document, unfolded, as property → value.
    func events(_ document: String) -> [[String: String]] {
        let lines = document.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n")
        var events: [[String: String]] = []
        var current: [String: String]?
        for line in lines {
            if line == "BEGIN:VEVENT" { current = [:] } else if line == "END:VEVENT", let event = current {
                events.append(event)
                current = nil
            } else if let colon = line.firstIndex(of: ":"), current != nil {
                current![String(line[..<colon])] = String(line[line.index(after: colon)...])
            }
        }
        return events
    }

    @Test("from the caches only: meals at the set times in the system's zone, visits, stable UIDs; a changed visit gets the next SEQUENCE")
    func export() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let empty = try brados(["calendar"], server)
        #expect(empty.status == 0 && events(empty.stdout).isEmpty && empty.stdout.hasPrefix("BEGIN:VCALENDAR\r\n"), "\(empty)")
        #expect(empty.stderr.contains("mealplan has nothing cached (brados mealplan show)"), "\(empty.stderr)")

        #expect(try brados(["mealplan", "show"], server).status == 0)
        #expect(try brados(["visits", "list"], server).status == 0)
        #expect(try brados(["config", "set", "mealplan.time.breakfast", "07:15"], server).status == 0)
        try await server.resetStats()
        // A January week: New York is UTC-5 then.
        let week = try brados(["calendar", "--offline", "--from", "2027-01-04", "--to", "2027-01-11"], server)
        #expect(week.status == 0, "\(week.stderr)")
        #expect(try await server.stats().total == 0, "the calendar reads the caches only")
        let meals = events(week.stdout)
        #expect(meals.count == 21, "\(meals.count)")
        let breakfast = try #require(meals.first { $0["UID"] == "mealplan-2027-01-04-breakfast@brados" })
        #expect(breakfast["DTSTART"] == "20270104T121500Z" && breakfast["DTEND"] == "20270104T124500Z", "07:15 in New York: \(breakfast)")
        #expect(week.stderr.contains("calendar: 21 events: mealplan 21 (cached"), "\(week.stderr)")
        let again = try brados(["calendar", "--offline", "--from", "2027-01-04", "--to", "2027-01-11"], server)
        #expect(again.stdout == week.stdout, "the same caches give the same bytes (the second from the last export kept)")
        // A setting the events come from: the kept document is not used.
        #expect(try brados(["config", "set", "mealplan.time.breakfast", "07:30"], server).status == 0)
        let moved = events(try brados(["calendar", "--offline", "--from", "2027-01-04", "--to", "2027-01-11"], server).stdout)
        #expect(moved.first { $0["UID"] == "mealplan-2027-01-04-breakfast@brados" }?["DTSTART"] == "20270104T123000Z")
        #expect(moved.first { $0["UID"] == "mealplan-2027-01-04-breakfast@brados" }?["SEQUENCE"] == "1", "a moved meal is an update")

        // A visit changed on the server: the next export updates its event (same UID, SEQUENCE 1).
        let all = events(try brados(["calendar"], server).stdout)
        let visit = try #require(all.first { $0["UID"]?.hasPrefix("visits-") == true })
        #expect(visit["SEQUENCE"] == "0")
        let id = String(visit["UID"]!.dropFirst("visits-".count).dropLast("@brados".count))
        try await server.sql("UPDATE visit SET place = 'Moved, Inc; Suite 2' WHERE id = ?", [id])
        #expect(try brados(["visits", "revalidate"], server).status == 0)
        let changed = try #require(events(try brados(["calendar"], server).stdout).first { $0["UID"] == visit["UID"] })
        #expect(changed["SEQUENCE"] == "1" && changed["SUMMARY"] == #"Moved\, Inc\; Suite 2"#, "\(changed)")
        #expect(changed["LAST-MODIFIED"] != visit["LAST-MODIFIED"])

        let json = try brados(["calendar", "--json", "--domains", "visits"], server)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["events"] as? [[String: Any]])?.count == all.count - all.filter { $0["UID"]?.hasPrefix("mealplan-") == true }.count)
        #expect(((object["domains"] as? [String: Any])?["visits"] as? [String: Any])?["savedAt"] is String)
    }

    @Test("calendar.file: sync keeps it current, rewritten only when it changes; bad input is a usage error that writes nothing")
    func subscribedFile() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["mealplan", "show"], server).status == 0)
        let file = home.url.appendingPathComponent("feeds/brados.ics")
        #expect(try brados(["config", "set", "calendar.file", "feeds/brados.ics"], server).status != 0, "a relative path is refused")
        #expect(try brados(["config", "set", "calendar.file", file.path], server).status == 0)
        let synced = try brados(["sync"], server)
        #expect(synced.status == 0, "\(synced.stderr)")
        let written = try String(contentsOf: file, encoding: .utf8)
        #expect(written == (try brados(["calendar"], server).stdout))
        #expect(events(written).contains { $0["UID"]?.hasPrefix("visits-") == true }, "sync filled the visits, and the file has them")
        let modified = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
        try await Task.sleep(for: .milliseconds(50))
        #expect(try brados(["sync"], server).status == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date == modified, "the same content is not rewritten")

        let notInCalendar = try brados(["calendar", "--domains", "library"], server)
        #expect(notInCalendar.status == 64 && notInCalendar.stderr.contains("Domains that do: mealplan, visits"), "\(notInCalendar.stderr)")
        let badDate = try brados(["calendar", "--from", "next tuesday"], server)
        #expect(badDate.status == 64 && badDate.stdout.isEmpty, "\(badDate)")
        let noFolder = try brados(["calendar", "-o", home.url.appendingPathComponent("missing/x.ics").path], server)
        #expect(noFolder.status != 0 && !noFolder.stderr.isEmpty)
    }
}
