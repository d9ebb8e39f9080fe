import BradOSStorage
import Foundation

/// One event a domain puts in `brados calendar` (a meal at its time, a visit), from its cache.
public struct CalendarEvent: Sendable, Equatable {
    /// Stable across exports (`<domain>-<id>@brados`), so a calendar updates the event rather
    /// than adding a second one.
    public var uid: String
    public var start: Date
    public var end: Date
    public var summary: String
    public var description: String?
    public var location: String?
    /// Raised when the item changes, with ``changedAt``, so a calendar takes the new version.
    public var sequence: Int
    public var changedAt: Date

    public init(uid: String, start: Date, end: Date, summary: String, description: String? = nil, location: String? = nil,
                sequence: Int = 0, changedAt: Date) {
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

/// `brados calendar`: the domain's events in a range, from its cache (never the network).
public protocol AddsToCalendar: DomainPlugin {
    /// What the domain puts in the calendar, for `brados calendar --help` ("meals at their times").
    var calendarDescription: String { get }
    /// The events that overlap `range`, read from the profile's cache.
    /// - Throws: the domain's errors reading its cache.
    func calendarEvents(in profile: ProfileScope, during range: Range<Date>, settings: Settings) throws -> [CalendarEvent]
}
