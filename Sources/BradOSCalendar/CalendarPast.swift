import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// The days already past of the domains whose cache holds only the present
/// (``AddsToCalendar/calendarRemembersPast``: the meal plan keeps one session): the events the
/// calendar exported for each day, kept in the profile's cache (`calendar/past.json`) and
/// written again as they were once the day is over, so a plan finalized on Tuesday changes
/// Tuesday and later and never Monday's meals, and last week's meals stay in the file.
///
/// Each export keeps what it wrote for today and later days (the next export may still change
/// them), and for a past day it had no record of (its first export); days before the window
/// (`calendar.past`, 4 weeks) are forgotten. A file that does not read is an empty record: the
/// past is then what the cache gives, as before there was one.
struct CalendarPast {
    struct Record: Codable, Equatable {
        static let currentVersion = 1
        var version = Self.currentVersion
        /// Domain → day (`2026-12-01`, in the calendar's zone) → its events as exported.
        var domains: [String: [String: [CalendarEvent]]] = [:]
        /// The zone the days and times of day were read in (a change of it keeps each meal's hour).
        var zone: String?
    }

    let url: URL

    init(profile: ProfileScope) {
        url = CalendarExport.folder(profile).appendingPathComponent("past.json")
    }

    func load() -> Record {
        guard let data = try? AtomicFile.readIfPresent(url), let record = try? JSONCoding.decode(Record.self, from: data),
              record.version == Record.currentVersion else { return Record() }
        return record
    }

    /// A domain's events in `range`: days before `today` as remembered (computed from the cache
    /// for a day with no record), today and later from the cache; the record updated.
    /// - Parameter events: the domain's events from its cache for a range.
    /// - Throws: what `events` throws.
    static func merge(_ record: inout Record, domain: String, range: Range<Date>, today: Date, window: Date, calendar: Calendar,
                      events: (Range<Date>) throws -> CalendarContribution) throws -> CalendarContribution {
        var contribution = try events(range)
        let day = { (event: CalendarEvent) in Format.day(event.start, timeZone: calendar.timeZone) }
        var kept = record.domains[domain] ?? [:]
        // Kept in another zone (calendar.timezone set, the machine moved): the same day, the same hour.
        if let old = record.zone.flatMap(TimeZone.init(identifier:)), old.identifier != calendar.timeZone.identifier {
            kept = kept.mapValues { $0.map { rezoned($0, from: old, to: calendar.timeZone) } }
        }
        record.zone = calendar.timeZone.identifier
        let todayKey = Format.day(today, timeZone: calendar.timeZone)
        var merged: [CalendarEvent] = []
        var fromCache: [String: [CalendarEvent]] = [:]
        for event in contribution.events { fromCache[day(event), default: []].append(event) }
        // Days past that the record holds are written as they were, whatever the cache says now.
        for (key, events) in kept where key < todayKey {
            merged += events.filter { $0.end > range.lowerBound && $0.start < range.upperBound }
        }
        for (key, events) in fromCache {
            if key < todayKey, kept[key] != nil { continue }
            merged += events
            // Today and later follow the cache; a past day seen first now is kept as it is.
            if key >= todayKey || kept[key] == nil { kept[key] = events }
        }
        // A day the cache has no events for any more (a new plan without it) is kept as empty:
        // exported as nothing, and once past, still nothing.
        let exportedDays = Set(fromCache.keys)
        for key in kept.keys where key >= todayKey && !exportedDays.contains(key) {
            if let start = calendar.date(from: dayComponents(key)), start >= range.lowerBound, start < range.upperBound { kept[key] = [] }
        }
        let windowKey = Format.day(window, timeZone: calendar.timeZone)
        kept = kept.filter { $0.key >= windowKey }
        record.domains[domain] = kept.isEmpty ? nil : kept
        contribution.events = merged
        return contribution
    }

    /// A time of day read in `old` read again in `new`: the same hour on the same day.
    static func rezoned(_ event: CalendarEvent, from old: TimeZone, to new: TimeZone) -> CalendarEvent {
        guard event.timeOfDay else { return event }
        func move(_ date: Date) -> Date {
            let wall = date.addingTimeInterval(TimeInterval(old.secondsFromGMT(for: date)))
            let guess = wall.addingTimeInterval(-TimeInterval(new.secondsFromGMT(for: wall)))
            return wall.addingTimeInterval(-TimeInterval(new.secondsFromGMT(for: guess)))
        }
        var event = event
        event.start = move(event.start)
        event.end = move(event.end)
        return event
    }

    /// `2026-12-01` as year, month and day.
    static func dayComponents(_ key: String) -> DateComponents {
        let parts = key.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return DateComponents() }
        return DateComponents(year: parts[0], month: parts[1], day: parts[2])
    }

    /// Saves `record` when it changed (a failure to save is the next export's miss, nothing more).
    func save(_ record: Record, was old: Record) {
        guard record != old, let data = try? JSONCoding.encode(record) else { return }
        try? AtomicFile.write(data, to: url, durable: false)
    }
}
