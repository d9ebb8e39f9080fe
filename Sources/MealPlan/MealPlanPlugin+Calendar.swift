import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// `brados calendar`: the cached plan's meals, each day's at its meal times.
extension MealPlanPlugin: AddsToCalendar {
    /// A meal's time of day: `mealplan.time.<type>`, `HH:MM` at the calendar's hour (wherever the person is).
    public static let mealTimes: [(type: String, defaultValue: String)] = [
        ("breakfast", "08:00"), ("lunch", "12:30"), ("dinner", "19:00"), ("snack", "15:30"),
    ]
    /// How long a meal's event lasts.
    public static let mealLengthSetting = DurationSetting(name: "mealplan.meal-length", summary: "How long a meal's event lasts in `brados calendar`",
                                                          defaultValue: "30m", allowsZero: false)

    public var configKeys: [ConfigKey] {
        Self.mealTimes.map { meal in
            ConfigKey(name: "mealplan.time.\(meal.type)",
                      summary: "When \(meal.type) is, 19:00 or 7:00pm, for `brados calendar`" + (meal.type == "snack" ? " (and any other meal type)" : ""),
                      defaultValue: meal.defaultValue, validate: { TimeOfDay($0) == nil ? "a time of day such as 08:00, 19:30 or 7:30pm" : nil })
        } + [Self.mealLengthSetting.configKey]
    }

    public var calendarDescription: String { "the cached plan's meals, each at its mealplan.time.*" }

    /// The plan repeats weekly from the Monday of the week it was finalized in (as `today`
    /// reads it) until a new one replaces it. Each meal's UID is its date and type, not the
    /// plan's id: a new plan's Tuesday dinner updates Tuesday's dinner event. Meals are times
    /// of day (``CalendarEvent/timeOfDay``); the cache holds one plan, so the calendar keeps
    /// the days already past (``calendarRemembersPast``).
    /// - Throws: ``ConfigError`` for a meal time or length that is not valid.
    public func calendarEvents(_ env: AppEnvironment, during range: Range<Date>, in local: Calendar) throws -> CalendarContribution {
        let times = try Dictionary(uniqueKeysWithValues: Self.mealTimes.map { meal in
            (meal.type, TimeOfDay(try env.settings.validated("mealplan.time.\(meal.type)"))!)
        })
        let length = TimeInterval(try Self.mealLengthSetting.value(in: env.settings).components.seconds)
        guard let cached = MealPlanCache(directory: env.profile.cacheDirectory(for: name), logger: env.logger).cached() else {
            return .nothingCached(fill: "brados mealplan show")
        }
        let session = cached.session
        var calendar = local
        calendar.firstWeekday = 2
        let planned = session.finalizedAt ?? session.createdAt
        guard let firstDay = calendar.dateInterval(of: .weekOfYear, for: planned)?.start else { return CalendarContribution(events: [], savedAt: cached.cachedAt) }
        // A meal may start before the range and end in it: begin a day early.
        var day = max(firstDay, calendar.startOfDay(for: range.lowerBound.addingTimeInterval(-86_400)))
        var events: [CalendarEvent] = []
        while day < range.upperBound {
            let date = Format.day(day, timeZone: calendar.timeZone)
            if let planDay = session.day(for: day, timeZone: calendar.timeZone) {
                var seen: [String: Int] = [:]
                for meal in planDay.meals {
                    let type = meal.mealType.lowercased()
                    let time = times[type] ?? times["snack"]!
                    guard let start = calendar.date(bySettingHour: time.hour, minute: time.minute, second: 0, of: day) else { continue }
                    let end = start.addingTimeInterval(length)
                    guard end > range.lowerBound, start < range.upperBound else { continue }
                    seen[type, default: 0] += 1
                    let slot = Self.slug(type) + (seen[type]! > 1 ? "-\(seen[type]!)" : "")
                    var description = "\(meal.recipeName)\n\(meal.calories) kcal, \(meal.protein) g protein"
                    if !meal.ingredients.isEmpty { description += "\nIngredients: " + meal.ingredients.joined(separator: ", ") }
                    description += "\nFrom the meal plan \(session.id) · brados mealplan show"
                    events.append(CalendarEvent(uid: "mealplan-\(date)-\(slot)@brados", start: start, end: end,
                                                summary: "\(meal.mealType.capitalized): \(meal.recipeName)", description: description,
                                                changedAt: planned, timeOfDay: true))
                }
            }
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
            day = next
        }
        return CalendarContribution(events: events, savedAt: cached.cachedAt)
    }

    /// The cached plan's file and the meal times and length: what the events come from (the
    /// calendar's zone is the calendar's own part of what it keeps).
    public func calendarStamp(_ env: AppEnvironment) -> String? {
        let file = MealPlanCache(directory: env.profile.cacheDirectory(for: name)).fileURL
        let settings = (Self.mealTimes.map { "mealplan.time.\($0.type)" } + [Self.mealLengthSetting.name]).map { env.settings.resolve($0).value ?? "" }
        return (FileSystem.identity(of: file) ?? "none") + "," + settings.joined(separator: ",")
    }

    /// The cache holds the latest plan alone: the meals of days past are the calendar's to keep.
    public var calendarRemembersPast: Bool { true }

    /// A meal type as part of a UID: lowercase letters, digits and `-`.
    static func slug(_ type: String) -> String {
        let kept = type.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "-" }
        return kept.isEmpty ? "meal" : String(kept)
    }
}

/// `HH:MM` (24-hour), as meal times are set.
public struct TimeOfDay: Sendable, Equatable {
    public var hour: Int
    public var minute: Int

    /// `19:00`, `7:00pm`, `7pm`, `7:00 PM` (``parseTimeOfDay(_:)``).
    public init?(_ text: String) {
        guard let (hour, minute) = parseTimeOfDay(text) else { return nil }
        self.hour = hour
        self.minute = minute
    }
}
