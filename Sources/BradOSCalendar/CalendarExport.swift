import BradOSCore
import BradOSErrors
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

/// What `brados calendar` and the `calendar.file` gather: every domain that ``AddsToCalendar``,
/// from its cache, in a range; each event numbered by ``CalendarRevisions`` so a changed meal
/// or visit updates its event in a calendar.
public struct CalendarExport: Sendable {
    /// One domain's part.
    public struct Part: Sendable {
        public var domain: String
        public var contribution: CalendarContribution?
        /// The domain's cache could not be read (a bad setting, a storage error): the others are still exported.
        public var failure: (any Error)?
    }

    public var parts: [Part]
    /// Every domain's events, sorted by start then UID, each with its SEQUENCE and LAST-MODIFIED.
    public var events: [CalendarEvent]

    /// The default range: everything cached, meals through 14 days from `now`'s day.
    public static func defaultRange(now: Date, calendar: Calendar) -> Range<Date> {
        let end = calendar.date(byAdding: .day, value: 15, to: calendar.startOfDay(for: now)) ?? now.addingTimeInterval(15 * 86_400)
        return Date(timeIntervalSince1970: 0)..<end
    }

    /// Gathers the events of `domains` (every domain that adds to the calendar when `nil`).
    /// - Throws: ``CalendarError/notInCalendar(_:adding:)`` for a name that is no domain that
    ///   adds to the calendar; a domain's own failure is kept in its ``Part``.
    public static func gather(_ env: AppEnvironment, domains: [String]?, during range: Range<Date>) throws -> CalendarExport {
        let adding = env.plugins.compactMap { $0 as? any AddsToCalendar }
        var chosen = adding
        if let domains {
            chosen = try domains.map { name in
                guard let plugin = adding.first(where: { $0.name == name }) else {
                    throw CalendarError.notInCalendar(name, adding: adding.map(\.name))
                }
                return plugin
            }
        }
        var parts: [Part] = []
        var events: [CalendarEvent] = []
        for plugin in chosen {
            do {
                let contribution = try plugin.calendarEvents(env, during: range)
                parts.append(Part(domain: plugin.name, contribution: contribution))
                events += contribution.events
            } catch {
                parts.append(Part(domain: plugin.name, contribution: nil, failure: error))
            }
        }
        events.sort { ($0.start, $0.uid) < ($1.start, $1.uid) }
        events = CalendarRevisions(profile: env.profile).number(events, now: env.now())
        return CalendarExport(parts: parts, events: events)
    }

    /// The iCalendar text.
    public var document: String { ICalendar.document(events, product: "brados \(BradOSVersion.current)") }

    /// What was exported and how old each domain's copy is, for stderr: `83 events: mealplan
    /// 63 (cached 2 days ago), visits 20 (cached 3 min ago)`; a domain with nothing cached says
    /// what fills it.
    public func summary(now: Date) -> String {
        let said = parts.map { part -> String in
            guard let contribution = part.contribution else {
                return "\(part.domain) could not be read (\(part.failure.map(\.summaryText) ?? "unknown"))"
            }
            guard let savedAt = contribution.savedAt else { return "\(part.domain) has nothing cached (\(contribution.fill ?? "brados sync"))" }
            return "\(part.domain) \(contribution.events.count) (cached \(Format.ago(now.timeIntervalSince(savedAt))))"
        }
        return Format.count(events.count, "event") + ": " + said.joined(separator: ", ")
    }

    /// The first domain's failure, if any.
    public var firstFailure: (any Error)? { parts.lazy.compactMap(\.failure).first }
}

/// The SEQUENCE and LAST-MODIFIED of each event brados has exported: an event whose content
/// changed since the last export gets the next SEQUENCE and a new LAST-MODIFIED, so calendars
/// take it as an update of the same UID (RFC 5545 §3.8.7.4). Kept in the profile's cache
/// (`calendar/revisions.json`); without it the numbering starts again at 0, which calendars
/// that match by UID still take.
public struct CalendarRevisions: Sendable {
    struct Revision: Codable, Sendable, Equatable {
        var hash: UInt64
        var sequence: Int
        var changedAt: Date
    }

    struct Ledger: VersionedDocument, Equatable {
        static let currentFormatVersion = 1
        var formatVersion = currentFormatVersion
        var events: [String: Revision] = [:]
    }

    let document: VersionedJSONDocument<Ledger>

    public init(profile: ProfileScope) {
        document = VersionedJSONDocument(url: profile.cacheDirectory.appendingPathComponent("calendar", isDirectory: true)
            .appendingPathComponent("revisions.json"))
    }

    /// `events` with their sequence and change time; the ledger is saved when one changed (a
    /// failure to save is not the export's: the next export numbers from the old ledger).
    public func number(_ events: [CalendarEvent], now: Date) -> [CalendarEvent] {
        let old = document.load() ?? Ledger()
        var ledger = old
        let numbered = events.map { event in
            var event = event
            let hash = Self.hash(event)
            if let kept = old.events[event.uid] {
                if kept.hash != hash {
                    ledger.events[event.uid] = Revision(hash: hash, sequence: kept.sequence + 1, changedAt: max(now, kept.changedAt))
                }
            } else {
                ledger.events[event.uid] = Revision(hash: hash, sequence: 0, changedAt: min(event.changedAt, now))
            }
            event.sequence = ledger.events[event.uid]!.sequence
            event.changedAt = ledger.events[event.uid]!.changedAt
            return event
        }
        if ledger != old { try? document.save(ledger) }
        return numbered
    }

    /// What a calendar shows of an event.
    static func hash(_ event: CalendarEvent) -> UInt64 {
        var text = "\(event.start.timeIntervalSince1970)\u{1F}\(event.end.timeIntervalSince1970)\u{1F}\(event.summary)"
        text += "\u{1F}\(event.description ?? "")\u{1F}\(event.location ?? "")"
        return XXH64.hash(Data(text.utf8))
    }
}
