import BradOSTerminal
import Foundation

/// A body weight as a person types it: a bare number is in the `units` setting's unit; a
/// suffix says the unit outright (`188lb`, `188 lbs`, `85.5kg`, `85,5 kg`, `13st 6lb`, `13st`).
/// A decimal point or comma; never an exponent, a sign, hex, `inf` or `nan`.
///
/// What is stored and sent is kilograms (the service's unit), rounded to 10 g.
public struct WeightInput: Sendable, Equatable {
    /// The unit a weight was read in.
    public enum Unit: String, Sendable, Equatable {
        case kilograms = "kg", pounds = "lb", stones = "st"
    }

    /// The weight in kilograms.
    public var kilograms: Double
    /// The unit it was read in.
    public var unit: Unit
    /// The suffix named the unit (not the setting's).
    public var named: Bool
    /// The number as typed, in ``unit`` (`188`; stones: the whole weight in pounds).
    public var value: Double

    /// The range a body weight (and a target weight) must fall in: the service's, 30–300 kg.
    public static let range: ClosedRange<Double> = 30...300

    /// `188 lb`, `85.5 kg`, `13 st 6 lb`: as read, for a message.
    public var typed: String {
        switch unit {
        case .kilograms, .pounds: "\(Format.number(value)) \(unit.rawValue)"
        case .stones: Self.stonesText(value)
        }
    }

    /// `13 st 6 lb` for 188 lb.
    static func stonesText(_ pounds: Double) -> String {
        let stones = Int(pounds / 14)
        let rest = pounds - Double(stones) * 14
        return "\(stones) st" + (rest > 0.005 ? " \(Format.number(rest)) lb" : "")
    }

    /// Reads `text`; a bare number is in `units`' unit.
    /// - Throws: ``NutritionError/invalidInput(_:fromServer:)`` naming both forms a number takes and the units.
    public static func parse(_ text: String, units: UnitSystem, what: String = "weight") throws -> WeightInput {
        let lowered = text.lowercased().trimmingCharacters(in: .whitespaces)
        func unreadable() -> NutritionError {
            .invalidInput("'\(text)' is not a \(what): write a number with a point or a comma, such as 84.5 or 84,5, "
                          + "and kg or lb after it to name the unit (e.g. 188lb); a bare number is in \(units.weightUnit) (`units` is \(units.rawValue))",
                          fromServer: false)
        }
        // Stones and pounds: `13st 6lb`, `13 st 6`, `13st`.
        if let range = lowered.range(of: "st") {
            let stonePart = lowered[..<range.lowerBound]
            var rest = lowered[range.upperBound...].trimmingCharacters(in: .whitespaces)
            if rest.hasPrefix("one") { rest = String(rest.dropFirst(3)).trimmingCharacters(in: .whitespaces) } // `13 stone 6`
            if rest.hasPrefix("s") { rest = String(rest.dropFirst()).trimmingCharacters(in: .whitespaces) }   // `13 stones`
            for suffix in ["lbs", "lb"] where rest.hasSuffix(suffix) { rest = String(rest.dropLast(suffix.count)) }
            guard let stones = parseDecimal(String(stonePart)) else { throw unreadable() }
            let pounds = rest.trimmingCharacters(in: .whitespaces).isEmpty ? 0 : parseDecimal(rest)
            guard let pounds, pounds < 14 else { throw unreadable() }
            let total = stones * 14 + pounds
            return WeightInput(kilograms: rounded(total * DisplayForms.kilogramsPerPound), unit: .stones, named: true, value: total)
        }
        let suffixes: [(String, Unit)] = [("kilograms", .kilograms), ("kilogram", .kilograms), ("kilos", .kilograms), ("kilo", .kilograms),
                                          ("kgs", .kilograms), ("kg", .kilograms), ("pounds", .pounds), ("pound", .pounds),
                                          ("lbs", .pounds), ("lb", .pounds), ("#", .pounds)]
        var number = lowered
        var unit: Unit = units == .metric ? .kilograms : .pounds
        var named = false
        for (suffix, meaning) in suffixes where number.hasSuffix(suffix) {
            number = String(number.dropLast(suffix.count))
            unit = meaning
            named = true
            break
        }
        guard let value = parseDecimal(number) else { throw unreadable() }
        let kilograms = unit == .kilograms ? value : value * DisplayForms.kilogramsPerPound
        return WeightInput(kilograms: rounded(kilograms), unit: unit, named: named, value: value)
    }

    static func rounded(_ kilograms: Double) -> Double { (kilograms * 100).rounded() / 100 }

    /// The same number read in the other unit (kg for lb, lb for kg): what a person may have meant.
    public var otherReading: WeightInput? {
        switch unit {
        case .kilograms: WeightInput(kilograms: Self.rounded(value * DisplayForms.kilogramsPerPound), unit: .pounds, named: true, value: value)
        case .pounds: WeightInput(kilograms: Self.rounded(value), unit: .kilograms, named: true, value: value)
        case .stones: nil
        }
    }

    /// Refuses a weight outside ``range``, naming the unit it was read in.
    /// - Throws: ``NutritionError/invalidInput(_:fromServer:)``.
    public func checkRange(what: String = "weight") throws {
        guard !Self.range.contains(kilograms) else { return }
        let inUnit = unit == .kilograms ? "" : " (\(DisplayForms.standard.weightBrief(kilograms)))"
        var reason = "a \(what) of \(typed)\(inUnit) is outside 30–300 kg (66–661 lb), the range the plan service takes"
        if let other = otherReading, Self.range.contains(other.kilograms) {
            reason += "; if you meant \(other.typed), write `\(Format.number(value))\(other.unit.rawValue)`"
        }
        throw NutritionError.invalidInput(reason, fromServer: false)
    }
}

/// The rule a new weight is checked by against the last one known (the service's history and
/// what is queued here): a person's weight changes by at most 10 % of it (or 5 kg, whichever is
/// more) a week since the last weigh-in, and never by more than 30 % of it. A larger change is
/// a slip (pounds typed as kilograms, a missing digit): `plan weight` asks on a terminal and
/// refuses in a script (exit 14) unless `--yes`.
public struct WeightPlausibility: Sendable, Equatable {
    /// The last weight known, and its day (`2026-11-24`).
    public var lastKilograms: Double
    public var lastDay: String

    /// The largest change allowed `days` after the last weight.
    public func allowance(days: Int) -> Double {
        let weeks = max(1, Double(days) / 7)
        return min(max(5, lastKilograms * 0.10) * weeks, lastKilograms * 0.30)
    }

    /// Whether `kilograms` on `day` (`2026-12-02`) is a plausible next weight.
    public func isPlausible(_ kilograms: Double, on day: String) -> Bool {
        let days = (WeightLog.dayNumber(day) ?? 0) - (WeightLog.dayNumber(lastDay) ?? 0)
        return abs(kilograms - lastKilograms) <= allowance(days: max(0, days)) + 0.005
    }
}
