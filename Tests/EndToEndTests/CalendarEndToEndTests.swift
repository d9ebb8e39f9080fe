import Foundation
import Testing
import TestSupport

/// `brados calendar` and `calendar.file` end to end: the built `brados` against a
/// `brados-server` process, in a time zone of its own.
@Suite("End to end: calendar", .serialized, .ownThread)
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

    @Test("from the caches only: meals at their hour wherever the reader is (floating, whatever TZ says), visits, stable UIDs; a changed visit gets the next SEQUENCE")
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
        // A January week, written with TZ=America/New_York: the meal is at 07:15, floating.
        let week = try brados(["calendar", "--offline", "--from", "2027-01-04", "--to", "2027-01-11"], server)
        #expect(week.status == 0, "\(week.stderr)")
        #expect(try await server.stats().total == 0, "the calendar reads the caches only")
        let meals = events(week.stdout)
        #expect(meals.count == 21, "\(meals.count)")
        let breakfast = try #require(meals.first { $0["UID"] == "mealplan-2027-01-04-breakfast@brados" })
        #expect(breakfast["DTSTART"] == "20270104T071500" && breakfast["DTEND"] == "20270104T074500", "07:15 wherever one is: \(breakfast)")
        #expect(week.stderr.contains("calendar: 21 events: mealplan 21 (cached"), "\(week.stderr)")
        let again = try brados(["calendar", "--offline", "--from", "2027-01-04", "--to", "2027-01-11"], server)
        #expect(again.stdout == week.stdout, "the same caches give the same bytes (the second from the last export kept)")
        // A setting the events come from: the kept document is not used.
        #expect(try brados(["config", "set", "mealplan.time.breakfast", "07:30"], server).status == 0)
        let moved = events(try brados(["calendar", "--offline", "--from", "2027-01-04", "--to", "2027-01-11"], server).stdout)
        #expect(moved.first { $0["UID"] == "mealplan-2027-01-04-breakfast@brados" }?["DTSTART"] == "20270104T073000")
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

    /// `brados` on a clock of its own, at `time` (libfaketime's `faketime`: only the wall clock,
    /// timers run as they do), and the events it prints.
    func events(_ arguments: [String], _ server: ServerProcess, at time: Date, extra: [String: String] = [:]) throws -> [[String: String]] {
        var environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
                           "FAKETIME_DONT_FAKE_MONOTONIC": "1", "BRADOS_CREDENTIALS_STORE": "file", "BRADOS_LIBRARY_PREFETCH": "false"]
        environment.merge(extra) { $1 }
        let result = try BuiltProducts.run(executable: try SystemCommand.url("faketime"), [Self.stamp(time), BuiltProducts.url("brados").path] + arguments,
                                           environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return events(result.stdout)
    }

    static func stamp(_ date: Date) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
    }

    static func day(_ date: Date) -> String { String(stamp(date).prefix(10)) }

    @Test("the past stays: a new plan changes today and later, never the days before; days within calendar.past stay in the file")
    func pastStays() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["mealplan", "show"], server).status == 0)
        // Noon UTC tomorrow, and two days after: what the calendar exports on each (days in UTC, the machine's).
        let noon = Calendar(identifier: .gregorian).startOfDay(for: Date()).addingTimeInterval(86_400 + 43_200)
        let first = try events(["calendar", "--offline", "--domains", "mealplan"], server, at: noon, extra: ["TZ": "UTC"])
        let tomorrow = Self.day(noon), later = Self.day(noon.addingTimeInterval(2 * 86_400))
        let planA = try #require(first.first { $0["UID"] == "mealplan-\(tomorrow)-breakfast@brados" }?["DESCRIPTION"])
        #expect(planA.contains("mp_seed1"), "\(planA)")

        // A new plan, finalized (the person's own), cached.
        #expect(try brados(["mealplan", "new"], server).status == 0)
        let finalized = try brados(["mealplan", "finalize", "--json"], server)
        #expect(finalized.status == 0, "\(finalized.stderr)")
        let planB = try #require(try JSONSerialization.jsonObject(with: Data(finalized.stdout.utf8)) as? [String: Any])
        let idB = try #require((planB["session"] as? [String: Any])?["id"] as? String ?? planB["id"] as? String)

        let second = try events(["calendar", "--offline", "--domains", "mealplan"], server, at: noon.addingTimeInterval(2 * 86_400), extra: ["TZ": "UTC"])
        let kept = try #require(second.first { $0["UID"] == "mealplan-\(tomorrow)-breakfast@brados" })
        #expect(kept["DESCRIPTION"] == planA, "a day past is as it was exported: \(kept)")
        let today = try #require(second.first { $0["UID"] == "mealplan-\(later)-breakfast@brados" })
        #expect(today["DESCRIPTION"]?.contains(idB) == true, "today follows the new plan: \(today)")
        // The first export's days before tomorrow stay too, back to four weeks.
        #expect(Set(first.map { $0["UID"]! }).filter { $0 < "mealplan-\(later)" }.isSubset(of: Set(second.map { $0["UID"]! })))
        #expect(second.allSatisfy { ($0["DTSTART"] ?? "") >= Self.day(noon.addingTimeInterval(-26 * 86_400)).replacingOccurrences(of: "-", with: "") },
                "nothing older than calendar.past")
    }

    @Test("calendar.file is one profile's: every writer gives the same bytes whatever its TZ; another profile leaves it; visits add, delete and finalize rewrite it as they end")
    func oneProfilesFile() async throws {
        let server = try ServerProcess()
        let file = home.url.appendingPathComponent("cal/brados.ics")
        func run(_ arguments: [String], _ extra: [String: String] = [:], stdin: String? = nil) throws -> BuiltProducts.Result {
            try BuiltProducts.run("brados", arguments, environment: ["BRADOS_HOME": home.url.path, "HOME": home.url.path,
                                                                     "BRADOS_SERVER": server.url.absoluteString].merging(extra) { $1 }, stdin: stdin)
        }
        #expect(try run(["auth", "login", "--user", "demo", "--password-stdin"], stdin: "demo").status == 0)
        #expect(try run(["config", "set", "calendar.file", file.path]).status == 0)
        #expect(try run(["sync"], ["TZ": "Asia/Tokyo"]).status == 0)
        let tokyo = try Data(contentsOf: file)
        #expect(try run(["sync"], ["TZ": "UTC"]).status == 0)
        #expect(try Data(contentsOf: file) == tokyo, "the same caches, the same bytes, whatever TZ the writer has")
        #expect(!events(String(decoding: tokyo, as: UTF8.self)).contains { $0["SEQUENCE"] != "0" }, "nothing moved, nothing renumbered")
        #expect(String(decoding: tokyo, as: UTF8.self).contains("\r\nX-BRADOS-PROFILE:default\r\n"))

        // A profile restored from a backup, never signed in: its sync leaves the file.
        let archive = home.url.appendingPathComponent("backup.tar.gz").path
        #expect(try run(["cache", "export", "-o", archive]).status == 0)
        #expect(try run(["cache", "import", archive, "--as", "restored"]).status == 0)
        let other = try run(["--profile", "restored", "sync"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stderr.contains("is the calendar of profile 'default'"), "\(other.stderr)")
        #expect(try Data(contentsOf: file) == tokyo, "another profile's sync left it as it was")

        // The person's own changes are in the file as each command ends, not at the next sync.
        let when = Self.stamp(Date().addingTimeInterval(2 * 86_400)).replacingOccurrences(of: " ", with: "T") + "Z"
        let added = try run(["visits", "add", "--place", "Calendar Clinic", "--at", when, "--duration", "20", "--json"])
        #expect(added.status == 0, "\(added.stderr)")
        let visit = (try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])?["visit"] as? [String: Any]
        let id = try #require(visit?["id"] as? String)
        #expect(events(try String(contentsOf: file, encoding: .utf8)).contains { $0["UID"] == "visits-\(id)@brados" }, "visits add wrote it")
        #expect(try run(["visits", "delete", id]).status == 0)
        #expect(!events(try String(contentsOf: file, encoding: .utf8)).contains { $0["UID"] == "visits-\(id)@brados" }, "visits delete wrote it")
        #expect(try run(["mealplan", "new"]).status == 0)
        let finalized = try run(["mealplan", "finalize", "--json"])
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(finalized.stdout.utf8)) as? [String: Any])
        let planID = try #require((plan["session"] as? [String: Any])?["id"] as? String ?? plan["id"] as? String)
        #expect(try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "\r\n ", with: "").contains(planID), "finalize wrote it")
    }
}
