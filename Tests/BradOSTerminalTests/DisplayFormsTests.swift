import BradOSTerminal
import Foundation
import Testing

/// The one number form, units, the clock and the week: locale-independent, setting-driven.
@Suite("Display forms")
struct DisplayFormsTests {
    @Test("whole numbers have no thousands separator; changes carry the ASCII minus")
    func numbers() {
        #expect(Format.count(2244) == "2244")
        #expect(Format.count(-1394) == "-1394")
        #expect(Format.count(1024, "file") == "1024 files")
        #expect(Format.signed(-0.5, decimals: 1) == "-0.5")
        #expect(Format.signed(0.04, decimals: 1) == "+0.0" || Format.signed(0.04, decimals: 1) == "0.0")
        #expect(Format.signed(-0.04, decimals: 1) == "0.0", "no negative zero")
        #expect(Format.signed(12) == "+12" && Format.signed(-102) == "-102" && Format.signed(0) == "0")
        #expect(Format.fixed(-0.001, decimals: 2) == "0.00")
    }

    @Test("fixed decimals are printf's: the same text as String(format:), halves and huge values too")
    func fixedMatchesPrintf() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0, -0.0, 0.5, 1.5, 2.5, 0.125, 0.375, 1.005, 2.675, 84.5, -84.455, 1e21, -3.4e38, .greatestFiniteMagnitude,
                                .leastNonzeroMagnitude, .infinity, -.infinity, .nan]
        for _ in 0..<2000 { values.append(Double.random(in: -100_000...100_000, using: &generator)) }
        for _ in 0..<200 { values.append(Double(Int.random(in: -2000...2000, using: &generator)) / 8) }
        for value in values {
            for decimals in 0...3 {
                let expected = String(format: "%.\(decimals)f", value)
                let fixed = Format.fixed(value, decimals: decimals)
                // fixed() writes a negative zero without its minus; everything else as printf.
                let unsigned = expected.hasPrefix("-") && expected.dropFirst().allSatisfy { $0 == "0" || $0 == "." }
                #expect(fixed == (unsigned ? String(expected.dropFirst()) : expected), "\(value) with \(decimals) decimals")
            }
        }
        #expect(Format.bytes(1_234_567) == "1.2 MB" && Format.bytes(250_000_000) == "250 MB" && Format.bytes(999) == "999 B")
        #expect(Format.number(84.5) == "84.5" && Format.number(-0.001) == "0" && Format.number(2) == "2")
    }

    @Test("joinedDirectly is joined(separator:)")
    func joinedDirectly() {
        for parts in [[], [""], ["a"], ["a", "b"], ["", "", ""], ["東京", "x", "", "😀 y"]] as [[String]] {
            for separator in ["", ", ", "\n", "·"] {
                #expect(parts.joinedDirectly(separator: separator) == parts.joined(separator: separator))
            }
        }
    }

    @Test("the process's environment read from environ is ProcessInfo's; the local zone is TimeZone.current")
    func environmentAndZone() {
        #expect(StandardIO.processEnvironment() == ProcessInfo.processInfo.environment)
        #expect(StandardIO().environment["PATH"] == ProcessInfo.processInfo.environment["PATH"])
        #expect(TimeZone.local == TimeZone.current)
        #expect(TimeZone.local == TimeZone.local, "asked twice, the same zone")
        let instant = Date(timeIntervalSince1970: 1_764_000_000)  // 2025-11-24 16:00 UTC
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!, utc = TimeZone(identifier: "UTC")!
        #expect(Format.minute(instant, timeZone: tokyo) == "2025-11-25 01:00")
        #expect(Format.minute(instant, timeZone: utc) == "2025-11-24 16:00", "one calendar per zone, none shared")
        #expect(Format.day(instant, timeZone: tokyo) == "2025-11-25" && Format.day(instant, timeZone: utc) == "2025-11-24")
    }

    @Test("weights and volumes in the unit set; kilograms and millilitres underneath")
    func units() {
        let metric = DisplayForms(units: .metric)
        let imperial = DisplayForms(units: .imperial)
        #expect(metric.weight(86) == "86.0 kg" && imperial.weight(86) == "189.6 lb")
        #expect(metric.weightBrief(84.5) == "84.5 kg" && imperial.weightBrief(85.28) == "188 lb")
        #expect(metric.weightChange(-4.2) == "-4.2 kg" && imperial.weightChange(1) == "+2.2 lb")
        #expect(metric.volume(3000) == "3000 ml" && imperial.volume(3000) == "101 fl oz")
    }

    @Test("the clock: 24-hour by default, 12-hour by the setting; midnight and noon are 12")
    func clock() {
        let twelve = DisplayForms(clock: .twelveHour)
        #expect(DisplayForms.standard.time(hour: 7, minute: 5) == "07:05")
        #expect(twelve.time(hour: 19, minute: 5) == "7:05 pm" && twelve.time(hour: 0, minute: 0) == "12:00 am" && twelve.time(hour: 12, minute: 30) == "12:30 pm")
        let date = Date(timeIntervalSince1970: 1_764_253_800) // 2025-11-27 14:30 UTC
        #expect(twelve.minute(date, timeZone: TimeZone(identifier: "UTC")!) == "2025-11-27 2:30 pm")
    }

    @Test("the week starts on the day set", arguments: [(WeekStart.monday, 2), (.sunday, 1), (.saturday, 7)])
    func week(start: WeekStart, weekday: Int) throws {
        let calendar = DisplayForms(weekStart: start).calendar(timeZone: TimeZone(identifier: "UTC")!)
        // Sunday 2026-11-29: the week it is in starts on the day set.
        let sunday = Date(timeIntervalSince1970: 1_795_910_400)
        let first = try #require(calendar.dateInterval(of: .weekOfYear, for: sunday)?.start)
        #expect(calendar.component(.weekday, from: first) == weekday)
        #expect(first <= sunday)
    }

    @Test("times of day as people write them")
    func timesOfDay() {
        #expect(parseTimeOfDay("19:00")! == (19, 0) && parseTimeOfDay("7:00pm")! == (19, 0) && parseTimeOfDay("7 PM")! == (19, 0))
        #expect(parseTimeOfDay("12am")! == (0, 0) && parseTimeOfDay("12:30pm")! == (12, 30) && parseTimeOfDay("8:00")! == (8, 0))
        for bad in ["7", "25:00", "13pm", "7:60", "7:5", "0am", "", "19:00:00", "٧:٠٠"] { #expect(parseTimeOfDay(bad) == nil, "\(bad)") }
    }

    @Test("decimals with a point or a comma; never an exponent, hex, a sign, inf or nan; a comma before three digits is ambiguous")
    func decimals() {
        #expect(parseDecimal("84.5") == 84.5 && parseDecimal("84,5") == 84.5 && parseDecimal("86") == 86 && parseDecimal(" 85,25 ") == 85.25)
        for bad in ["1e2", "0x55", "inf", "nan", "-85", "+85", "85.5.1", "85,5,1", ".5", "5.", "1,500", "", "８５"] { #expect(parseDecimal(bad) == nil, "\(bad)") }
    }
}
