import BradOSCore
import BradOSPictures
import BradOSTerminal
import Foundation

/// `GET /auth/profile/weights`: the weights the person logged (one a day, oldest first) and
/// the plan's target weight. Cached with the plan.
public struct WeightHistory: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        /// The day, `2026-11-25` (UTC, as the service records it).
        public var date: String
        public var weight: Double
        public init(date: String, weight: Double) { self.date = date; self.weight = weight }
    }
    public var targetWeight: Double?
    public var weights: [Entry]

    public init(targetWeight: Double?, weights: [Entry]) {
        self.targetWeight = targetWeight
        self.weights = weights
    }

    /// Checks the service's answer: days that parse, weights in 30–300 kg, in order.
    /// - Throws: ``NutritionError/invalidResponse(_:)`` naming the first bad entry.
    func validate() throws {
        if let target = targetWeight, !(30...300).contains(target) { throw NutritionError.invalidResponse("targetWeight \(target) is outside 30–300 kg") }
        var previous: String?
        for entry in weights {
            guard WeightLog.dayNumber(entry.date) != nil else { throw NutritionError.invalidResponse("weight entry date '\(entry.date)' is not YYYY-MM-DD") }
            guard entry.weight.isFinite, (30...300).contains(entry.weight) else { throw NutritionError.invalidResponse("weight \(entry.weight) on \(entry.date) is outside 30–300 kg") }
            if let previous, previous >= entry.date { throw NutritionError.invalidResponse("weight entries are not in date order at \(entry.date)") }
            previous = entry.date
        }
    }
}

/// The weights to show: the service's history, then the changes still queued here (drawn
/// apart: they are not sent yet).
public struct WeightLog: Sendable, Equatable {
    public struct Point: Codable, Sendable, Equatable {
        public var date: String
        public var weight: Double
        /// Logged with `plan weight` and not sent yet.
        public var queued: Bool

        enum CodingKeys: String, CodingKey { case date, weightKg, weight, queued }

        public init(date: String, weight: Double, queued: Bool) {
            self.date = date
            self.weight = weight
            self.queued = queued
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            date = try container.decode(String.self, forKey: .date)
            weight = try container.decodeIfPresent(Double.self, forKey: .weightKg) ?? container.decode(Double.self, forKey: .weight)
            queued = try container.decode(Bool.self, forKey: .queued)
        }

        /// `weightKg`, and `weight` beside it for one release (deprecated).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(date, forKey: .date)
            try container.encode(weight, forKey: .weightKg)
            try container.encode(weight, forKey: .weight)
            try container.encode(queued, forKey: .queued)
        }
    }

    public var points: [Point]
    /// The target: a `plan set target-weight` still queued, else the service's.
    public var targetWeight: Double?
    /// The target is one queued and not sent yet (shown marked pending).
    public var targetPending = false

    /// The zone whose dates a person sees: a weight queued on Friday evening is Friday's, as `today` says.
    let timeZone: TimeZone

    public init(history: WeightHistory?, queued: [PendingOperation], timeZone: TimeZone = .local) {
        self.timeZone = timeZone
        targetWeight = history?.targetWeight
        points = (history?.weights ?? []).map { Point(date: $0.date, weight: $0.weight, queued: false) }
        for operation in queued.sorted(by: { $0.createdAt < $1.createdAt }) {
            if operation.kind == .updateTargetWeight, let target = operation.targetWeightKg {
                targetWeight = target
                targetPending = true
            }
            guard operation.kind == .updateWeight, let weight = operation.weightKg else { continue }
            points.append(Point(date: Format.day(operation.createdAt, timeZone: timeZone), weight: weight, queued: true))
        }
    }

    /// `target 78.0 kg`, `target 171.9 lb (pending)`.
    func targetText(_ forms: DisplayForms) -> String? {
        targetWeight.map { "target \(forms.weight($0))" + (targetPending ? " (pending)" : "") }
    }

    static let utc = TimeZone(identifier: "UTC")!

    /// Days since 1970-01-01 for `2026-11-25`; `nil` when it is not such a day.
    static func dayNumber(_ day: String) -> Int? {
        let parts = day.split(separator: "-")
        guard day.count == 10, parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let date = Int(parts[2]),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(date) else { return nil }
        // Days from civil (Howard Hinnant's algorithm): no calendar object on the hot path.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + date - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `2026-10-12` for a day number: the one date form of every command.
    static func isoDay(_ number: Double) -> String {
        Format.day(Date(timeIntervalSince1970: number.rounded() * 86400), timeZone: utc)
    }

    /// The plot of `plan show`: sent weights solid, queued ones dotted (and yellow), the
    /// target dashed, the last value labelled. Empty with fewer than two days.
    func plot(width: Int, height: Int, colours: Bool, forms: DisplayForms = .standard) -> [String] {
        let dated = points.compactMap { point in WeightLog.dayNumber(point.date).map { (x: Double($0), point: point) } }
        guard dated.count >= 2 else { return [] }
        let sent = dated.filter { !$0.point.queued }.map { (x: $0.x, y: forms.weightValue($0.point.weight)) }
        var queued = dated.filter(\.point.queued).map { (x: $0.x, y: forms.weightValue($0.point.weight)) }
        if !queued.isEmpty, let last = sent.last { queued.insert(last, at: 0) }
        var series: [BraillePlot.Series] = []
        if !sent.isEmpty { series.append(.init(points: sent, stroke: .solid, style: .cyan)) }
        if !queued.isEmpty { series.append(.init(points: queued, stroke: .dotted, style: .yellow)) }
        let last = dated.last!.point
        let plot = BraillePlot(
            series: series, reference: targetWeight.map { (forms.weightValue($0), targetText(forms) ?? "") },
            width: width, height: height,
            valueLabel: { Format.fixed($0, decimals: 1) }, timeLabel: { WeightLog.isoDay($0) },
            lastLabel: forms.weight(last.weight) + (last.queued ? " (queued)" : ""))
        return plot.render(colours: colours)
    }

    /// One line: the last weight and the change over the history shown.
    func summary(now: Date, forms: DisplayForms = .standard) -> String? {
        guard let last = points.last else { return nil }
        var text = "Weight \(forms.weight(last.weight))" + (last.queued ? " (queued)" : "")
        if let first = points.first, points.count > 1, let from = WeightLog.dayNumber(first.date), let to = WeightLog.dayNumber(last.date) {
            let change = last.weight - first.weight
            let days = max(1, to - from)
            text += ", \(forms.weightChange(change)) in \(days) day\(days == 1 ? "" : "s")"
        }
        if let target = targetText(forms) { text += " · " + target }
        return text
    }

    /// The last `days` days (to `now`) as a sparkline: one block a day, a gap for a day
    /// without a weigh-in (the day's last weight when there are two).
    func sparkline(days: Int, now: Date) -> (line: String, values: [Double?])? {
        guard let today = WeightLog.dayNumber(Format.day(now, timeZone: timeZone)) else { return nil }
        var values = [Double?](repeating: nil, count: days)
        for point in points {
            guard let day = WeightLog.dayNumber(point.date) else { continue }
            let index = days - 1 - (today - day)
            if index >= 0 && index < days { values[index] = point.weight }
        }
        guard values.contains(where: { $0 != nil }) else { return nil }
        return (Sparkline.render(values), values)
    }
}
