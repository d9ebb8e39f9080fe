import BradOSTerminal
import Foundation
@testable import Nutrition
import Testing

/// A weight as typed: its unit, its range, and whether it is plausible after the last one.
@Suite("Weight input")
struct WeightInputTests {
    @Test("a bare number is in the units set; a suffix says the unit outright; kilograms underneath")
    func parse() throws {
        #expect(try WeightInput.parse("84,5", units: .metric).kilograms == 84.5)
        #expect(try WeightInput.parse("186", units: .imperial).kilograms == 84.37)
        for text in ["188lb", "188 lbs", "188 LB", "188 pounds"] { #expect(try WeightInput.parse(text, units: .metric).kilograms == 85.28, "\(text)") }
        for text in ["85.5kg", "85,5 kg", "85.5 KG"] { #expect(try WeightInput.parse(text, units: .imperial).kilograms == 85.5, "\(text)") }
        let stones = try WeightInput.parse("13st 6lb", units: .metric)
        #expect(stones.kilograms == 85.28 && stones.typed == "13 st 6 lb")
        #expect(try WeightInput.parse("13st", units: .metric).kilograms == 82.55)
    }

    @Test("an unreadable number names both decimal forms and the unit a bare number is in")
    func unreadable() {
        for text in ["1e2", "85.5.1", "inf", "eighty", "13st 15lb", "1,500"] {
            #expect(throws: NutritionError.self) { try WeightInput.parse(text, units: .metric) }
        }
        do { _ = try WeightInput.parse("1e2", units: .imperial); Issue.record("1e2 was read") } catch {
            #expect("\(error)".contains("84.5 or 84,5") && "\(error)".contains("in lb"), "\(error)")
        }
    }

    @Test("out of 30–300 kg is refused in the unit it was read in, with the other unit's reading when that fits")
    func range() throws {
        #expect(throws: Never.self) { try WeightInput.parse("67lb", units: .metric).checkRange() }
        do { try WeightInput.parse("400", units: .metric).checkRange(); Issue.record("400 kg accepted") } catch {
            #expect("\(error)".contains("400 kg") && "\(error)".contains("`400lb`"), "\(error)")
        }
        do { try WeightInput.parse("20", units: .imperial).checkRange(); Issue.record("20 lb accepted") } catch {
            #expect("\(error)".contains("20 lb (9.1 kg)") && "\(error)".contains("`20kg`") == false, "20 kg is out of range too: \(error)")
        }
    }

    @Test("plausible: 10 % or 5 kg a week since the last weight, at most 30 %")
    func plausibility() {
        let last = WeightPlausibility(lastKilograms: 86, lastDay: "2026-11-24")
        #expect(last.isPlausible(84, on: "2026-11-25"))
        #expect(last.isPlausible(94.6, on: "2026-11-25") && !last.isPlausible(94.7, on: "2026-11-25"), "8.6 kg within the first week")
        #expect(!last.isPlausible(188, on: "2026-11-25"), "pounds typed as kilograms")
        #expect(!last.isPlausible(188, on: "2027-11-25"), "never more than 30 %, however long since")
        #expect(last.isPlausible(70, on: "2027-01-24"), "16 kg in two months")
        #expect(WeightPlausibility(lastKilograms: 40, lastDay: "2026-11-24").isPlausible(45, on: "2026-11-24"), "5 kg at least")
    }
}
