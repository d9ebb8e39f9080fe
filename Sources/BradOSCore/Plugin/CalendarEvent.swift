import BradOSStorage
import Foundation

/// One event a domain puts in `brados calendar` (a meal at its time, a visit), from its cache.
public struct CalendarEvent: Sendable, Equatable, Codable {
    /// Stable across exports (`<domain>-<id>@brados`), so a calendar updates the event rather
    /// than adding a second one.
    public var uid: String
    public var start: Date
    public var end: Date
    public var summary: String
    public var description: String?
    public var location: String?
    /// Raised each time the event's content changes (the calendar feature keeps the count), so
    /// a calendar takes the new version.
    public var sequence: Int
    /// When the event's content last changed: its LAST-MODIFIED and DTSTAMP.
    public var changedAt: Date
    /// A time of day (a meal at 08:00), not an instant: ``start`` and ``end`` are read in the
    /// calendar's zone and written as its hour (floating, or in `calendar.timezone`), so a
    /// person sees it at that hour wherever they are. `false`: an instant (a visit), in UTC.
    public var timeOfDay: Bool

    public init(uid: String, start: Date, end: Date, summary: String, description: String? = nil, location: String? = nil,
                sequence: Int = 0, changedAt: Date, timeOfDay: Bool = false) {
        self.timeOfDay = timeOfDay
        self.uid = uid
        self.start = start
        self.end = max(end, start)
        self.summary = summary
        self.description = description
        self.location = location
        self.sequence = sequence
        self.changedAt = changedAt
    }
}

/// What one domain gives `brados calendar`: its events in the range, and how old its cached copy is.
public struct CalendarContribution: Sendable {
    public var events: [CalendarEvent]
    /// When the cached copy the events come from was saved; `nil` when nothing is cached.
    public var savedAt: Date?
    /// The command that fills the cache, when nothing is cached (`brados visits list`).
    public var fill: String?

    public init(events: [CalendarEvent], savedAt: Date?) {
        self.events = events
        self.savedAt = savedAt
        fill = nil
    }

    /// Nothing cached: no events, and the command that fills the cache.
    public static func nothingCached(fill: String) -> CalendarContribution {
        var contribution = CalendarContribution(events: [], savedAt: nil)
        contribution.fill = fill
        return contribution
    }
}

/// `brados calendar`: the domain's events in a range, from its cache (never the network).
public protocol AddsToCalendar: DomainPlugin {
    /// What the domain puts in the calendar, for `brados calendar --help` ("meals at their times").
    var calendarDescription: String { get }
    /// The events that overlap `range`, read from the profile's cache (times from `env.settings`,
    /// days and times of day in `calendar`: the calendar's zone, never the writer's `TZ`).
    /// - Throws: the domain's errors reading its cache or its settings.
    func calendarEvents(_ env: AppEnvironment, during range: Range<Date>, in calendar: Calendar) throws -> CalendarContribution
    /// What changes whenever ``calendarEvents(_:during:)`` would give other events for a range:
    /// the identity of the cache file it reads (`FileSystem.identity(of:)`) and the settings
    /// it uses. While every domain's stamp and the range are the same, `brados calendar` writes
    /// the document it made last. `nil` (the default): the events are always read.
    func calendarStamp(_ env: AppEnvironment) -> String?
    /// The domain's cache holds only the present (the meal plan keeps one session): the
    /// calendar remembers the events it exported for days already past and writes them again
    /// as they were, so a new plan changes today and later, never yesterday. `false` (the
    /// default): the cache holds the past too (visits), and the calendar follows it.
    var calendarRemembersPast: Bool { get }
}

extension AddsToCalendar {
    public func calendarStamp(_ env: AppEnvironment) -> String? { nil }
    public var calendarRemembersPast: Bool { false }
}
