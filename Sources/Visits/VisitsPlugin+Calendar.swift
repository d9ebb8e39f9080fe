import BradOSCore
import BradOSStorage
import Foundation

/// `brados calendar`: each cached visit, from its time for its duration.
extension VisitsPlugin: AddsToCalendar {
    public var calendarDescription: String { "each cached visit, its place, address and notes" }

    /// The visits document and the signed-in account (another account's visits are not read).
    public func calendarStamp(_ env: AppEnvironment) -> String? {
        (FileSystem.identity(of: VisitsCache.url(in: env.profile)) ?? "none") + "," + (VisitsCache.account(env) ?? "")
    }

    /// The cached visits overlapping `range` (never the network; the list as last fetched).
    /// Each visit's UID is its id: an edited visit updates its event.
    public func calendarEvents(_ env: AppEnvironment, during range: Range<Date>, in calendar: Calendar) throws -> CalendarContribution {
        guard let entry = VisitsCache.live(env).load() else { return .nothingCached(fill: "brados visits list") }
        let events = entry.visits.compactMap { visit -> CalendarEvent? in
            let end = visit.visitedAt.addingTimeInterval(TimeInterval(max(visit.durationMinutes, 0) * 60))
            // A visit of no duration is an instant: it is in the range when its time is.
            guard end > range.lowerBound || (end == visit.visitedAt && visit.visitedAt >= range.lowerBound), visit.visitedAt < range.upperBound else {
                return nil
            }
            var description = visit.notes.map { $0 + "\n" } ?? ""
            description += "\(visit.durationMinutes) min · brados visits show \(visit.id)"
            return CalendarEvent(uid: "visits-\(visit.id)@brados", start: visit.visitedAt, end: end, summary: visit.place,
                                 description: description, location: visit.address ?? visit.place,
                                 changedAt: visit.createdAt ?? visit.visitedAt)
        }
        return CalendarContribution(events: events, savedAt: entry.savedAt)
    }
}
