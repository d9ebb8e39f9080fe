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
    /// One domain's part: how many events it gave and how old its cache is.
    public struct Part: Sendable {
        public var domain: String
        public var events: Int
        /// When the domain's cache was saved; `nil` when nothing is cached.
        public var savedAt: Date?
        /// What fills the cache, when nothing is cached.
        public var fill: String?
        /// The domain's cache could not be read (a bad setting, a storage error): the others are still exported.
        public var failure: (any Error)?
    }

    public var parts: [Part]
    /// Every domain's events, sorted by start then UID, each with its SEQUENCE and LAST-MODIFIED
    /// (empty when the document is the one kept from the last export: ``document(_:domains:during:)``).
    public var events: [CalendarEvent]
    /// The iCalendar text of ``events``.
    public var document: String

    /// How far back the default range reaches: `calendar.past`, 4 weeks.
    public static let pastSetting = DurationSetting(
        name: "calendar.past", summary: "How far back `brados calendar` and calendar.file reach (events of days since stay in the file)",
        defaultValue: "4w", allowsZero: true)

    /// Where the calendar keeps what it derives from the caches (the ledger, the kept exports).
    static func folder(_ profile: ProfileScope) -> URL {
        profile.cacheDirectory.appendingPathComponent("calendar", isDirectory: true)
    }

    /// The default range: from the start of the week (`calendar`'s first weekday:
    /// `display.week-start`) `past` before `now`'s day (`calendar.past`, 4 weeks) through 14
    /// days after it, days in `calendar`.
    public static func defaultRange(now: Date, calendar: Calendar, past: Duration = .seconds(28 * 86_400)) -> Range<Date> {
        let today = calendar.startOfDay(for: now)
        let end = calendar.date(byAdding: .day, value: 15, to: today) ?? now.addingTimeInterval(15 * 86_400)
        let days = Int(past.components.seconds / 86_400)
        let first = calendar.date(byAdding: .day, value: -days, to: today) ?? today.addingTimeInterval(-TimeInterval(days * 86_400))
        let start = calendar.dateInterval(of: .weekOfYear, for: first)?.start ?? first
        return start..<end
    }

    /// The default range of `env`: ``defaultRange(now:calendar:past:)`` with its `calendar.past`,
    /// in its calendar's zone, weeks from its `display.week-start`.
    /// - Throws: ``ConfigError`` for a `calendar.past` or `calendar.timezone` that is not valid.
    public static func defaultRange(_ env: AppEnvironment) throws -> Range<Date> {
        var calendar = try CalendarZone.of(env.settings).calendar
        calendar.firstWeekday = env.output.forms.weekStart.firstWeekday
        return try defaultRange(now: env.now(), calendar: calendar, past: pastSetting.value(in: env.settings))
    }

    /// The domains `names` asks for (every domain that adds to the calendar when `nil`).
    /// - Throws: ``CalendarError/notInCalendar(_:adding:)``.
    static func chosen(_ env: AppEnvironment, _ names: [String]?) throws -> [any AddsToCalendar] {
        let adding = env.plugins.compactMap(\.asAddsToCalendar)
        guard let names else { return adding }
        return try names.map { name in
            guard let plugin = adding.first(where: { $0.name == name }) else { throw CalendarError.notInCalendar(name, adding: adding.map(\.name)) }
            return plugin
        }
    }

    /// Gathers the events of `domains` (every domain that adds to the calendar when `nil`).
    /// - Throws: ``CalendarError/notInCalendar(_:adding:)`` for a name that is no domain that
    ///   adds to the calendar; a domain's own failure is kept in its ``Part``.
    /// - Throws: ``ConfigError`` for a `calendar.timezone` or `calendar.past` that is not valid.
    public static func gather(_ env: AppEnvironment, domains: [String]?, during range: Range<Date>) throws -> CalendarExport {
        var parts: [Part] = []
        var events: [CalendarEvent] = []
        let zone = try CalendarZone.of(env.settings)
        let calendar = zone.calendar
        let today = calendar.startOfDay(for: env.now())
        let window = calendar.date(byAdding: .day, value: -Int(try pastSetting.value(in: env.settings).components.seconds / 86_400), to: today) ?? today
        let past = CalendarPast(profile: env.profile)
        let kept = past.load()
        var record = kept
        for plugin in try chosen(env, domains) {
            do {
                let contribution = plugin.calendarRemembersPast
                    ? try CalendarPast.merge(&record, domain: plugin.name, range: range, today: today, window: window, calendar: calendar) {
                        try plugin.calendarEvents(env, during: $0, in: calendar)
                    }
                    : try plugin.calendarEvents(env, during: range, in: calendar)
                parts.append(Part(domain: plugin.name, events: contribution.events.count, savedAt: contribution.savedAt, fill: contribution.fill))
                events += contribution.events
            } catch {
                parts.append(Part(domain: plugin.name, events: 0, failure: error))
            }
        }
        past.save(record, was: kept)
        events.sort { ($0.start, $0.uid) < ($1.start, $1.uid) }
        events = CalendarRevisions(profile: env.profile).number(events, now: env.now(), zone: zone)
        return CalendarExport(parts: parts, events: events, document: ICalendar.document(events, product: "brados \(BradOSVersion.current)",
                                                                                       zone: zone, profile: env.profile.name.rawValue))
    }

    /// The document of `domains` in `range`: the one the last export kept when nothing it came
    /// from moved (each domain's ``AddsToCalendar/calendarStamp(_:)``, the range, the revisions
    /// ledger: ``CalendarMemo``), else gathered and kept. What `brados calendar` and
    /// `calendar.file` write; `--json` gathers.
    /// - Throws: as ``gather(_:domains:during:)``.
    public static func document(_ env: AppEnvironment, domains: [String]?, during range: Range<Date>) throws -> CalendarExport {
        let plugins = try chosen(env, domains)
        let memo = CalendarMemo(profile: env.profile)
        // Stamped before reading: a cache that moves meanwhile is a miss next time, never a stale hit.
        let stamps = try Self.stamps(env, plugins)
        let url = memo.url(stamps, range: range)
        if let key = memo.key(stamps, range: range), let kept = memo.load(key: key, from: url) {
            utime(url.path, nil)  // used now: the newest four are the four used last
            return kept
        }
        let export = try gather(env, domains: plugins.map(\.name), during: range)
        // The ledger as the export left it.
        if export.firstFailure == nil, let key = memo.key(stamps, range: range) { memo.save(export, key: key, to: url) }
        return export
    }

    /// What the events of `plugins` come from, for ``CalendarMemo``: each domain's stamp and
    /// the calendar's own parts (its zone, the profile it names, the past it keeps).
    /// - Throws: ``ConfigError`` for a `calendar.timezone` that is not valid.
    static func stamps(_ env: AppEnvironment, _ plugins: [any AddsToCalendar]) throws -> [(String, String?)] {
        let zone = try CalendarZone.of(env.settings)
        let own = "zone:\(zone.days.identifier):\(zone.written?.identifier ?? "floating") profile:\(env.profile.name.rawValue) past:"
            + (FileSystem.identity(of: CalendarPast(profile: env.profile).url) ?? "none")
        return [("calendar", own)] + plugins.map { ($0.name, $0.calendarStamp(env)) }
    }

    /// What was exported and how old each domain's copy is, for stderr: `83 events: mealplan
    /// 63 (cached 2 days ago), visits 20 (cached 3 min ago)`; a domain with nothing cached says
    /// what fills it.
    public func summary(now: Date) -> String {
        let said = parts.map { part -> String in
            if let failure = part.failure { return "\(part.domain) could not be read (\(failure.summaryText))" }
            guard let savedAt = part.savedAt else { return "\(part.domain) has nothing cached (\(part.fill ?? "brados sync"))" }
            return "\(part.domain) \(part.events) (cached \(Format.ago(now.timeIntervalSince(savedAt))))"
        }
        return Format.count(parts.reduce(0) { $0 + $1.events }, "event") + ": " + said.joined(separator: ", ")
    }

    /// The first domain's failure, if any.
    public var firstFailure: (any Error)? { parts.lazy.compactMap(\.failure).first }
}

/// The last document `brados calendar` or `calendar.file` made, with what it came from
/// (`cache/…/calendar/export-<hash>.ics`, one a range and set of domains, the four used last kept: a
/// key line, the parts as JSON, the document): written
/// again as it is while nothing it came from moved, so a warm export costs a file's read, not
/// every domain's decode. The key holds brados's version, the range, each domain's stamp and
/// the revisions ledger's identity; a memo that does not read is a miss.
struct CalendarMemo {
    struct StoredPart: Codable {
        var domain: String
        var events: Int
        var savedAt: Date?
        var fill: String?
    }

    /// How many exports are kept (one a range and set of domains: `calendar`, a week, calendar.file).
    static let kept = 4
    let folder: URL
    let ledger: URL

    init(profile: ProfileScope) {
        folder = CalendarExport.folder(profile)
        ledger = CalendarRevisions(profile: profile).url
    }

    /// The file of one range and set of domains: `export-<hash>.ics`.
    func url(_ stamps: [(String, String?)], range: Range<Date>) -> URL {
        let name = "\(range.lowerBound.timeIntervalSince1970) \(range.upperBound.timeIntervalSince1970) " + stamps.map(\.0).joined(separator: ",")
        return folder.appendingPathComponent("export-" + String(XXH64.hash(Data(name.utf8)), radix: 16) + ".ics")
    }

    /// `nil` when a domain has no stamp (its events are always computed).
    func key(_ stamps: [(String, String?)], range: Range<Date>) -> String? {
        var key = "brados \(BradOSVersion.current) calendar \(range.lowerBound.timeIntervalSince1970) \(range.upperBound.timeIntervalSince1970)"
        for (domain, stamp) in stamps {
            guard let stamp else { return nil }
            key += " \(domain)=\(stamp)"
        }
        key += " ledger=\(FileSystem.identity(of: ledger) ?? "none")"
        return key.contains("\n") ? nil : key
    }

    func load(key: String, from url: URL) -> CalendarExport? {
        guard let data = try? AtomicFile.readIfPresent(url) else { return nil }
        return data.withUnsafeBytes { raw -> CalendarExport? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let first = bytes.firstIndex(of: 10), let second = bytes[(first + 1)...].firstIndex(of: 10),
                  String(decoding: UnsafeBufferPointer(rebasing: bytes[..<first]), as: UTF8.self) == key,
                  let parts = try? JSONCoding.decode([StoredPart].self, from: Data(UnsafeRawBufferPointer(rebasing: raw[(first + 1)..<second])))
            else { return nil }
            return CalendarExport(parts: parts.map { CalendarExport.Part(domain: $0.domain, events: $0.events, savedAt: $0.savedAt, fill: $0.fill) },
                                  events: [], document: String(decoding: UnsafeBufferPointer(rebasing: bytes[(second + 1)...]), as: UTF8.self))
        }
    }

    /// Keeps `export` under `key` (a failure to keep it is a miss next time, nothing more).
    func save(_ export: CalendarExport, key: String, to url: URL) {
        let parts = export.parts.map { StoredPart(domain: $0.domain, events: $0.events, savedAt: $0.savedAt, fill: $0.fill) }
        guard let json = try? JSONCoding.encode(parts) else { return }
        var data = Data((key + "\n").utf8)
        data.append(json)
        data.append(10)
        data.append(contentsOf: export.document.utf8)
        try? AtomicFile.write(data, to: url, durable: false)
        // This one and the others used last stay (times to the nanosecond: several exports a second).
        let others = FileSystem.regularFiles(under: folder)
            .filter { $0.relativePath.hasPrefix("export-") && !$0.relativePath.contains("/") && $0.url.lastPathComponent != url.lastPathComponent }
            .map { ($0.url, FileSystem.attributes(of: $0.url)?.modified ?? .distantPast) }
        for old in others.sorted(by: { $0.1 > $1.1 }).dropFirst(Self.kept - 1) { try? FileSystem.remove(old.0) }
    }
}

/// The SEQUENCE and LAST-MODIFIED of each event brados has exported: an event whose content
/// changed since the last export gets the next SEQUENCE and a new LAST-MODIFIED, so calendars
/// take it as an update of the same UID (RFC 5545 §3.8.7.4). Kept in the profile's cache
/// (`calendar/revisions.tsv`: a line an event, UID, content hash, SEQUENCE, change time, end,
/// read and written without a JSON coder: it is read on every export); without it the
/// numbering starts again at 0, which calendars that match by UID still take. An event that
/// ended over a year ago and is no longer exported is forgotten.
public struct CalendarRevisions: Sendable {
    struct Revision: Equatable {
        var hash: UInt64
        var sequence: Int
        /// Seconds since 1970, as LAST-MODIFIED and the event's end are written (to the second).
        var changedAt: Int
        var end: Int
    }

    static let header = "brados calendar revisions 2"
    let url: URL

    public init(profile: ProfileScope) {
        url = CalendarExport.folder(profile).appendingPathComponent("revisions.tsv")
    }

    /// `events` with their sequence and change time; the ledger is saved when one changed (a
    /// failure to save is not the export's: the next export numbers from the old ledger).
    public func number(_ events: [CalendarEvent], now: Date, zone: CalendarZone? = nil) -> [CalendarEvent] {
        guard !events.isEmpty else { return events }
        let old = load()
        var ledger = old
        let numbered = events.map { event in
            var event = event
            // A UID that would break a line of the ledger is numbered 0, as without one.
            guard !event.uid.utf8.contains(where: { $0 == 9 || $0 == 10 || $0 == 13 }) else { return event }
            let hash = Self.hash(event, zone: zone)
            let end = Self.seconds(event.end)
            if let kept = old[event.uid] {
                if kept.hash != hash {
                    ledger[event.uid] = Revision(hash: hash, sequence: kept.sequence + 1, changedAt: max(Self.seconds(now), kept.changedAt), end: end)
                } else if kept.end != end {
                    ledger[event.uid]!.end = end
                }
            } else {
                ledger[event.uid] = Revision(hash: hash, sequence: 0, changedAt: Self.seconds(min(event.changedAt, now)), end: end)
            }
            event.sequence = ledger[event.uid]!.sequence
            event.changedAt = Date(timeIntervalSince1970: TimeInterval(ledger[event.uid]!.changedAt))
            return event
        }
        let exported = Set(events.lazy.map(\.uid))
        let forgotten = Self.seconds(now) - 366 * 86_400
        ledger = ledger.filter { exported.contains($0.key) || $0.value.end >= forgotten }
        if ledger != old { try? save(ledger) }
        return numbered
    }

    static func seconds(_ date: Date) -> Int {
        let value = date.timeIntervalSince1970.rounded(.down)
        return value.isFinite ? Int(max(min(value, 9e15), -9e15)) : 0
    }

    /// The ledger, parsed from its bytes (a line that does not read is left out).
    func load() -> [String: Revision] {
        guard let data = try? AtomicFile.readIfPresent(url) else { return [:] }
        return data.withUnsafeBytes { raw -> [String: Revision] in
            let bytes = raw.bindMemory(to: UInt8.self)
            let header = Array(Self.header.utf8)
            guard bytes.count > header.count, bytes[header.count] == 10, zip(header, bytes).allSatisfy({ $0 == $1 }) else { return [:] }
            var ledger: [String: Revision] = [:]
            ledger.reserveCapacity(bytes.count / 48)
            var start = header.count + 1
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != 10 { end += 1 }
                if let (uid, revision) = Self.parse(UnsafeBufferPointer(rebasing: bytes[start..<end])) { ledger[uid] = revision }
                start = end + 1
            }
            return ledger
        }
    }

    /// `uid \t hash (hex) \t sequence \t changedAt \t end`.
    static func parse(_ line: UnsafeBufferPointer<UInt8>) -> (String, Revision)? {
        var fields: [Range<Int>] = []
        var start = 0
        for index in 0...line.count where index == line.count || line[index] == 9 {
            fields.append(start..<index)
            start = index + 1
        }
        guard fields.count == 5, !fields[0].isEmpty else { return nil }
        func number(_ range: Range<Int>, radix: Int) -> Int? {
            guard !range.isEmpty, range.count <= 19 else { return nil }
            var value = 0
            var negative = false
            for index in range {
                let byte = line[index]
                if byte == UInt8(ascii: "-"), index == range.lowerBound, radix == 10 { negative = true; continue }
                let digit: Int
                switch byte {
                case 48...57: digit = Int(byte - 48)
                case 97...102 where radix == 16: digit = Int(byte - 87)
                default: return nil
                }
                value = value &* radix &+ digit
            }
            return negative ? -value : value
        }
        guard let hash = number(fields[1], radix: 16), let sequence = number(fields[2], radix: 10),
              let changedAt = number(fields[3], radix: 10), let end = number(fields[4], radix: 10) else { return nil }
        return (String(decoding: UnsafeBufferPointer(rebasing: line[fields[0]]), as: UTF8.self),
                Revision(hash: UInt64(bitPattern: Int64(hash)), sequence: sequence, changedAt: changedAt, end: end))
    }

    func save(_ ledger: [String: Revision]) throws {
        var text = Self.header + "\n"
        text.reserveCapacity(ledger.count * 64)
        for (uid, revision) in ledger.sorted(by: { $0.key < $1.key }) {
            text += "\(uid)\t\(String(revision.hash, radix: 16))\t\(revision.sequence)\t\(revision.changedAt)\t\(revision.end)\n"
        }
        try AtomicFile.write(Data(text.utf8), to: url, durable: false)
    }

    /// What a calendar shows of an event: its times as written (a time of day as its hour and
    /// zone, not the instant it is in this machine's zone) and texts, each text ended by a 0x1F.
    static func hash(_ event: CalendarEvent, zone: CalendarZone? = nil) -> UInt64 {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + event.summary.utf8.count + (event.description?.utf8.count ?? 0) + (event.location?.utf8.count ?? 0))
        var start = event.start.timeIntervalSince1970, end = event.end.timeIntervalSince1970
        if event.timeOfDay, let days = zone?.days {
            start += TimeInterval(days.secondsFromGMT(for: event.start))
            end += TimeInterval(days.secondsFromGMT(for: event.end))
            bytes += Array((zone?.written?.identifier ?? "floating").utf8)
            bytes.append(0x1F)
        }
        withUnsafeBytes(of: start.bitPattern.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: end.bitPattern.littleEndian) { bytes += $0 }
        for text in [event.summary, event.description ?? "", event.location ?? ""] {
            bytes += text.utf8
            bytes.append(0x1F)
        }
        return bytes.withUnsafeBytes { XXH64.hash($0) }
    }
}
