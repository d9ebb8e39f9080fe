import Foundation

/// How a body weight and a volume are shown and read (`units`): what is stored and sent is
/// always kilograms and millilitres; grams and kcal are the same in both, as on food labels.
public enum UnitSystem: String, Sendable, Equatable, CaseIterable {
    case metric, imperial

    /// `kg` or `lb`.
    public var weightUnit: String { self == .metric ? "kg" : "lb" }
    /// `ml` or `fl oz`.
    public var volumeUnit: String { self == .metric ? "ml" : "fl oz" }
}

/// How a time of day is written (`display.clock`).
public enum ClockStyle: String, Sendable, Equatable, CaseIterable {
    case twentyFourHour = "24h"
    case twelveHour = "12h"
}

/// The day a week starts on (`display.week-start`): `today`'s week, the calendar's range, every weekly figure.
public enum WeekStart: String, Sendable, Equatable, CaseIterable {
    case monday, sunday, saturday

    /// `Calendar.firstWeekday` (1 is Sunday).
    public var firstWeekday: Int {
        switch self {
        case .sunday: 1
        case .monday: 2
        case .saturday: 7
        }
    }
}

/// The forms numbers, quantities, times and weeks take on screen: one value a process,
/// from its settings, carried by ``Output`` so that every renderer writes the same forms.
///
/// Locale-independent by design (as git and gh are): ISO dates, a point for decimals, no
/// thousands separator, the ASCII hyphen-minus; only what the settings change differs.
public struct DisplayForms: Sendable, Equatable {
    public var units: UnitSystem
    public var clock: ClockStyle
    public var weekStart: WeekStart
    /// The accessible mode (`display.accessible`): words for symbols (``Output/spoken(_:)``),
    /// text lines for pictures.
    public var accessible: Bool

    public init(units: UnitSystem = .metric, clock: ClockStyle = .twentyFourHour, weekStart: WeekStart = .monday, accessible: Bool = false) {
        self.units = units
        self.clock = clock
        self.weekStart = weekStart
        self.accessible = accessible
    }

    /// Metric, the 24-hour clock, weeks from Monday.
    public static let standard = DisplayForms()

    /// Kilograms in a pound (exactly, by the 1959 agreement).
    public static let kilogramsPerPound = 0.45359237
    /// Millilitres in a US fluid ounce.
    public static let millilitresPerFluidOunce = 29.5735295625

    /// A body weight in the unit shown: kilograms, or pounds.
    public func weightValue(_ kilograms: Double) -> Double {
        units == .metric ? kilograms : kilograms / Self.kilogramsPerPound
    }

    /// `86.0 kg`, `189.6 lb`: one decimal.
    public func weight(_ kilograms: Double) -> String {
        Format.fixed(weightValue(kilograms), decimals: 1) + " " + units.weightUnit
    }

    /// `84.5 kg`, `186.3 lb`: at most one decimal, none when whole (a value a person typed).
    public func weightBrief(_ kilograms: Double) -> String {
        let value = (weightValue(kilograms) * 10).rounded() / 10
        return Format.number(value) + " " + units.weightUnit
    }

    /// `+0.4 kg`, `-1.2 lb`, `±0.0 kg`: a change, signed with the ASCII minus.
    public func weightChange(_ kilograms: Double) -> String {
        Format.signed(weightValue(kilograms), decimals: 1) + " " + units.weightUnit
    }

    /// A volume in whole units of the one shown: millilitres, or fluid ounces.
    public func volumeValue(_ millilitres: Int) -> Int {
        units == .metric ? millilitres : Int((Double(millilitres) / Self.millilitresPerFluidOunce).rounded())
    }

    /// `3000 ml`, `101 fl oz`.
    public func volume(_ millilitres: Int) -> String { "\(volumeValue(millilitres)) \(units.volumeUnit)" }

    /// `19:05`, `7:05 pm`.
    public func time(hour: Int, minute: Int) -> String {
        let mm = minute < 10 ? "0\(minute)" : "\(minute)"
        switch clock {
        case .twentyFourHour: return (hour < 10 ? "0\(hour)" : "\(hour)") + ":" + mm
        case .twelveHour:
            let twelve = hour % 12 == 0 ? 12 : hour % 12
            return "\(twelve):\(mm) \(hour < 12 ? "am" : "pm")"
        }
    }

    /// `2026-11-21 14:30` or `2026-11-21 2:30 pm` in `timeZone`.
    public func minute(_ date: Date, timeZone: TimeZone = .local) -> String {
        let parts = Format.components(date, timeZone)
        return Format.day(parts) + " " + time(hour: parts.hour, minute: parts.minute)
    }

    /// `14:30` or `2:30 pm` in `timeZone`.
    public func timeOfDay(_ date: Date, timeZone: TimeZone = .local) -> String {
        let parts = Format.components(date, timeZone)
        return time(hour: parts.hour, minute: parts.minute)
    }

    /// A Gregorian calendar in `timeZone` whose weeks start on ``weekStart``.
    public func calendar(timeZone: TimeZone = .local) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = weekStart.firstWeekday
        return calendar
    }
}

/// A time of day as a person writes it: `19:00`, `7:00pm`, `7pm`, `7:00 PM`, `12am` (midnight).
/// - Returns: hour (0–23) and minute, or `nil`.
public func parseTimeOfDay(_ text: String) -> (hour: Int, minute: Int)? {
    var value = Substring(text.lowercased().filter { $0 != " " })
    var meridiem: String?
    for suffix in ["am", "pm", "a.m.", "p.m."] where value.hasSuffix(suffix) {
        meridiem = String(suffix.prefix(1))
        value = value.dropLast(suffix.count)
        break
    }
    let parts = value.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
          let hour = Int(parts[0]), let minute = parts.count == 2 ? Int(parts[1]) : 0, (0...59).contains(minute)
    else { return nil }
    if parts.count == 2, parts[1].count != 2 { return nil }
    guard let meridiem else {
        // 24-hour: `19:00`; a bare hour is not a time (`7` could be either).
        return parts.count == 2 && (0...23).contains(hour) ? (hour, minute) : nil
    }
    guard (1...12).contains(hour) else { return nil }
    return (meridiem == "a" ? hour % 12 : hour % 12 + 12, minute)
}

/// A decimal number as people write it: `84.5` or `84,5` (one separator, digits around it),
/// never an exponent, a sign, hex, `inf` or `nan`. A comma before exactly three digits
/// (`1,500`) is refused: to half the world it separates thousands, to the other it is a decimal.
public func parseDecimal(_ text: String) -> Double? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    var separators = 0
    var digits = 0
    for character in trimmed {
        if character == "." || character == "," { separators += 1 } else if character.isASCII, character.isNumber { digits += 1 } else { return nil }
    }
    guard digits > 0, separators <= 1, trimmed.first != "." , trimmed.first != ",", trimmed.last != ".", trimmed.last != "," else { return nil }
    if let comma = trimmed.firstIndex(of: ","), trimmed[trimmed.index(after: comma)...].count == 3 { return nil }
    return Double(trimmed.replacingOccurrences(of: ",", with: "."))
}
