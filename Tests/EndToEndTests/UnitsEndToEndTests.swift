import Foundation
import Testing
import TestSupport

/// Units, numbers and locales end to end: the built `brados` under four locales, metric and
/// imperial, against a `brados-server` process that holds what was sent.
@Suite("End to end: units and number forms", .serialized, .ownThread)
struct UnitsEndToEndTests {
    /// One person's home at a server: brados run in `locale`.
    struct Person {
        let home = TemporaryDirectory("e2e-units")
        let server: ServerProcess
        let locale: String

        func environment(_ extra: [String: String] = [:]) -> [String: String] {
            ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
             "LC_ALL": locale, "LANG": locale, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"].merging(extra) { $1 }
        }

        @discardableResult
        func run(_ arguments: [String], stdin: String? = nil) throws -> BuiltProducts.Result {
            try BuiltProducts.run("brados", arguments, environment: environment(), stdin: stdin)
        }

        func json(_ arguments: [String]) throws -> [String: Any] {
            let result = try run(arguments + ["--json"])
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\n\(result.stderr)")
        }

        func signIn() throws {
            let result = try run(["auth", "login", "--user", "demo", "--password-stdin"], stdin: "demo")
            #expect(result.status == 0, "\(result.stderr)")
        }

        /// The weights queued, in kilograms.
        func queued() throws -> [Double] {
            (try json(["plan", "pending"])["pending"] as? [[String: Any]] ?? []).compactMap { $0["weightKg"] as? Double }
        }
    }

    /// The demo user's current weight as the server holds it.
    func serverWeight(_ server: ServerProcess) async throws -> Double? {
        try await server.sql("SELECT currentWeight FROM plan_profile").first?.first as? Double
    }

    static let locales = ["C", "de_DE.UTF-8", "ja_JP.UTF-8", "en_US.UTF-8"]

    @Test("in every locale and both units: the weight typed is queued and sent as the same kilograms, shown in its unit, every number in one form",
          arguments: locales)
    func sameKilogramsEverywhere(locale: String) async throws {
        let server = try ServerProcess()
        for (units, typed, shown) in [("metric", "85,5", "85.5 kg"), ("imperial", "188.5", "188.5 lb")] {
            let person = Person(server: server, locale: locale)
            try person.signIn()
            #expect(try person.run(["config", "set", "units", units]).status == 0)
            _ = try person.run(["plan", "show"])
            let queued = try person.run(["--offline", "plan", "weight", typed])
            #expect(queued.status == 0, "\(locale) \(units): \(queued.stderr)")
            #expect(queued.stdout.contains("weight \(shown.replacingOccurrences(of: ".0 ", with: " "))"), "\(locale) \(units): \(queued.stdout)")
            #expect(try person.queued() == [85.5], "\(locale) \(units): what is queued is kilograms")

            let show = try person.run(["--offline", "plan", "show", "--art", "none"])
            #expect(show.stdout.contains("Weight \(shown) (queued)"), "\(locale) \(units): \(show.stdout)")
            let water = units == "metric" ? " ml" : " fl oz"
            #expect(show.stdout.contains(water), "\(show.stdout)")
            #expect(show.stdout.range(of: #"[0-9],[0-9]{3}"#, options: .regularExpression) == nil, "no thousands separator: \(show.stdout)")
            #expect(!show.stdout.contains("−"), "one minus sign: \(show.stdout)")
            let history = try person.run(["--offline", "plan", "history"])
            #expect(history.stdout.contains(units == "metric" ? "KG" : "LB"), "\(history.stdout)")
            let today = try person.run(["--offline", "today"])
            #expect(today.stdout.range(of: #"[0-9],[0-9]{3}"#, options: .regularExpression) == nil, "\(today.stdout)")

            let document = try person.json(["--offline", "plan", "show"])
            let points = try #require((document["weights"] as? [String: Any])?["points"] as? [[String: Any]])
            #expect(points.last?["weightKg"] as? Double == 85.5, "--json is kilograms whatever units says: \(points)")

            let sync = try person.run(["plan", "sync"])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(try await serverWeight(server) == 85.5, "\(locale) \(units): the server holds the same kilograms")
            // Back to the demo user's weight for the next person.
            #expect(try person.run(["plan", "weight", "86kg"]).status == 0)
        }
    }

    @Test("a weight far from the last: asked on a terminal (lb takes the other reading), refused in a script with nothing sent; 188lb in metric is 85.3 kg; 1e2 is refused")
    func implausibleWeight() async throws {
        let server = try ServerProcess()
        let person = Person(server: server, locale: "C.UTF-8")
        try person.signIn()
        _ = try person.run(["plan", "show"])
        try await server.resetStats()

        let script = try person.run(["plan", "weight", "188"])
        #expect(script.status == 14, "\(script.stdout)\(script.stderr)")
        #expect(script.stderr.contains("188 kg is 102 kg more than your last weight (86 kg, "), "\(script.stderr)")
        #expect(script.stderr.contains("brados plan weight 188lb") && script.stderr.contains("--yes"), "\(script.stderr)")
        #expect(try person.queued().isEmpty)
        #expect(try await server.stats().byRoute["PUT /auth/profile"] == nil, "nothing sent")

        let asked = try FakeTerminal.run([BuiltProducts.url("brados").path, "--offline", "plan", "weight", "188"],
                                         options: ["--answers", "silent", "--stderr", "--type", "[y/N/lb]=lb"], environment: person.environment())
        #expect(asked.status == 0, "\(asked.stdout)")
        #expect(asked.stdout.contains("Did you mean 188 lb (85.3 kg)? [y/N/lb]"), "\(asked.stdout)")
        #expect(try person.queued() == [85.28], "the other reading is queued")

        let no = try FakeTerminal.run([BuiltProducts.url("brados").path, "--offline", "plan", "weight", "18"],
                                      options: ["--answers", "silent", "--stderr", "--type", "[y/N]=n"], environment: person.environment())
        #expect(no.status == 64, "18 kg is out of range before any question: \(no.stdout)")

        let declined = try FakeTerminal.run([BuiltProducts.url("brados").path, "--offline", "plan", "weight", "120"],
                                            options: ["--answers", "silent", "--stderr", "--type", "[y/N]=n"], environment: person.environment())
        #expect(declined.status == 14, "\(declined.stdout)")
        #expect(try person.queued() == [85.28], "declined: nothing more queued")

        let forced = try person.run(["--offline", "plan", "weight", "120", "--yes"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try person.queued() == [85.28, 120])

        let pounds = try Person(server: server, locale: "de_DE.UTF-8")
        try pounds.signIn()
        _ = try pounds.run(["plan", "show"])
        #expect(try pounds.run(["--offline", "plan", "weight", "188lb"]).status == 0)
        #expect(try pounds.queued() == [85.28])
        #expect(try pounds.run(["--offline", "plan", "show", "--art", "none"]).stdout.contains("Weight 85.3 kg (queued)"))

        for bad in ["1e2", "0x55", "inf", "nan", "-85", "85.5.1", "1,500"] {
            let refused = try pounds.run(["--offline", "plan", "weight", bad])
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
            if bad == "1e2" { #expect(refused.stderr.contains("84.5 or 84,5"), "\(refused.stderr)") }
        }
        #expect(try pounds.queued() == [85.28], "nothing refused was queued")
    }

    @Test("the clock, the week's first day and meal times as people write them")
    func clockAndWeek() async throws {
        let server = try ServerProcess()
        let person = Person(server: server, locale: "en_US.UTF-8")
        try person.signIn()
        #expect(try person.run(["config", "set", "mealplan.time.dinner", "7:00pm"]).status == 0)
        #expect(try person.run(["config", "set", "mealplan.time.lunch", "13:00"]).status == 0)
        #expect(try person.run(["config", "set", "mealplan.time.snack", "25:00"]).status == 64)
        #expect(try person.run(["config", "set", "display.clock", "12h"]).status == 0)
        #expect(try person.run(["config", "set", "display.week-start", "sunday"]).status == 0)
        #expect(try person.run(["config", "set", "display.week-start", "friday"]).status == 64)
        #expect(try person.run(["visits", "add", "--place", "Clinic", "--at", "2026-11-20T14:30:00Z"]).status == 0)
        let list = try BuiltProducts.run("brados", ["visits", "list"], environment: person.environment(["TZ": "UTC"]))
        #expect(list.stdout.contains("2026-11-20 2:30 pm"), "\(list.stdout)")

        // The week: on Sunday 2026-11-29 at noon (UTC), `today`'s "this week" counts from the day set.
        #expect(try person.run(["visits", "add", "--place", "Gym", "--at", "2026-11-27T09:00:00Z"]).status == 0)
        #expect(try person.run(["visits", "add", "--place", "Pool", "--at", "2026-11-29T09:00:00Z"]).status == 0)
        let visits = try person.json(["visits", "list"])["visits"] as? [[String: Any]] ?? []
        let days = visits.compactMap { ($0["visitedAt"] as? String).map { String($0.prefix(10)) } }
        func thisWeek(_ start: String) throws -> Int? {
            #expect(try person.run(["config", "set", "display.week-start", start]).status == 0)
            let result = try BuiltProducts.run(executable: try SystemCommand.url("faketime"), ["2026-11-29 12:00:00", BuiltProducts.url("brados").path, "today", "--json"],
                                               environment: BuiltProducts.quiet(person.environment(["TZ": "UTC", "FAKETIME_DONT_FAKE_MONOTONIC": "1"])))
            let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return (document?["visits"] as? [String: Any])?["thisWeek"] as? Int
        }
        let fromMonday = try #require(try thisWeek("monday"))
        let fromSunday = try #require(try thisWeek("sunday"))
        let mondayToSaturday = days.filter { $0 >= "2026-11-23" && $0 <= "2026-11-28" }.count
        #expect(mondayToSaturday >= 1 && fromMonday - fromSunday == mondayToSaturday, "\(fromMonday) from Monday, \(fromSunday) from Sunday: \(days)")

        let values = try person.run(["---completion", "config", "set", "--", "positional@1", "3", "0", "config", "set", "units"])
        #expect(values.stdout.split(separator: "\n").map(String.init) == ["metric", "imperial"] || values.status != 0, "\(values.stdout)")
    }
}
