import ArgumentParser
import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

/// The visits domain: visit history, stale-while-revalidate with a TTL, optimistic delete.
/// Its cache lives in the profile's key-value store, so its cache ownership is those two keys.
public struct VisitsPlugin: DomainPlugin, Syncs, FeedsSearch, ShowsToday, ShapesArchives {
    public static let domainName = "visits"
    public static let ttlKey = "visits.ttl"

    public init() {}
    public var name: String { Self.domainName }
    public var summary: String { "Visit history: instant from cache, revalidated behind it (5-minute TTL)." }
    public var command: any ParsableCommand.Type { VisitsCommand.self }

    /// `visits.ttl`: 0s means "always revalidate first".
    public static let ttlSetting = DurationSetting(name: ttlKey, summary: "How long cached visits count as fresh",
                                                   environmentVariable: "BRADOS_VISITS_TTL", defaultValue: "5m", allowsZero: true)

    /// `visits.min-refresh-interval`: a script reading in a loop starts one background
    /// revalidation per interval, not one per call.
    public static let minRefreshIntervalSetting = DurationSetting(
        name: "visits.min-refresh-interval", summary: "Least time between two background revalidations of the visits (scripts)",
        environmentVariable: "BRADOS_VISITS_MIN_REFRESH_INTERVAL", defaultValue: "30s", allowsZero: true)

    /// Stale-while-revalidate: fresh for the TTL and revalidated behind every read (in
    /// scripts, at most once per `minRefreshInterval`); past the TTL, fetched first with the
    /// cached list as the answer to a failure.
    public static func cachePolicy(ttl: Duration, minRefreshInterval: Duration = .zero) -> CachePolicy {
        CachePolicy(freshFor: ttl, revalidation: .behind, minimumRefreshInterval: minRefreshInterval)
    }

    public var configKeys: [ConfigKey] { [Self.ttlSetting.configKey, Self.minRefreshIntervalSetting.configKey] }
    public var syncDescription: String { "revalidates the cached visits" }

    /// Revalidates the cached visits.
    public func sync(_ env: AppEnvironment, options: SyncOptions) async throws -> String? {
        let repository = try VisitsRepository.live(env)
        let visits = try await repository.fetch()
        repository.tellSettled(env.output.notice)
        return "\(visits.count) visits"
    }

    public var searchDescription: String { "place names, addresses and notes" }

    /// Every cached visit, sent again whenever the visits' document is rewritten.
    public func searchDocuments(in profile: ProfileScope, into feed: SearchFeed) throws {
        let cache = cache(in: profile)  // first: it moves the visits an earlier brados kept elsewhere
        guard let stamp = SearchStamp.file(VisitsCache.url(in: profile)) else { return }
        try feed.replace(stamp: stamp) {
            (cache.load()?.visits ?? []).map { visit in
                SearchDocument(key: "visit:" + visit.id, title: visit.place,
                               body: [visit.address, visit.notes].compactMap { $0 }.joined(separator: "\n"),
                               date: visit.visitedAt, command: "brados visits show \(visit.id)")
            }
        }
    }

    /// Today's visits still to come, the last one, and how many this week (from `display.week-start`, Monday by default).
    public func todaySection(_ context: TodayContext) async throws -> TodaySection? {
        guard let read = await context.read(try VisitsRepository.live(context.env).list) else {
            return .nothingCached("Visits", fill: "brados visits list")
        }
        let visits = read.value
        let weekStart = context.calendar.dateInterval(of: .weekOfYear, for: context.now)?.start ?? context.now
        let thisWeek = visits.filter { $0.visitedAt >= weekStart && $0.visitedAt <= context.now }.count
        var json: [String: JSONValue] = ["thisWeek": .number(Double(thisWeek)), "cached": .number(Double(visits.count))]
        var lines: [String] = []
        let tomorrow = context.calendar.date(byAdding: .day, value: 1, to: context.calendar.startOfDay(for: context.now)) ?? context.now
        let upcoming = visits.filter { $0.visitedAt > context.now && $0.visitedAt < tomorrow }.sorted { $0.visitedAt < $1.visitedAt }
        for visit in upcoming {
            lines.append("Today: " + context.output.styled(visit.place, .bold) + " at " + context.output.forms.timeOfDay(visit.visitedAt)
                + " · \(visit.durationMinutes) min" + (visit.pending ? " " + context.output.styled("(not sent yet)", .yellow) : ""))
        }
        json["upcoming"] = .array(upcoming.map { visit in
            .object(["id": .string(visit.id), "place": .string(visit.place), "visitedAt": .string(JSONCoding.string(from: visit.visitedAt)),
                     "durationMinutes": .number(Double(visit.durationMinutes))])
        })
        if let last = visits.filter({ $0.visitedAt <= context.now }).max(by: { $0.visitedAt < $1.visitedAt }) ?? (upcoming.isEmpty ? visits.first : nil) {
            lines.append("Last: " + context.output.styled(last.place, .bold) + " · " + context.output.forms.minute(last.visitedAt)
                + " · \(last.durationMinutes) min " + context.output.styled("(\(Format.ago(context.now.timeIntervalSince(last.visitedAt))))", .dim))
            json["last"] = .object(["id": .string(last.id), "place": .string(last.place), "visitedAt": .string(JSONCoding.string(from: last.visitedAt)),
                                    "durationMinutes": .number(Double(last.durationMinutes))])
        } else {
            lines.append(context.output.styled("no visits yet · brados visits add", .dim))
        }
        lines.append("\(Format.count(thisWeek, "visit")) this week · " + context.output.styled("brados visits list", .cyan))
        if let failure = read.refreshFailure { lines.append(context.output.styled("could not refresh: \(failure)", .yellow)) }
        return TodaySection(title: "Visits", lines: lines, json: json, staleAge: read.staleAge)
    }

    func cache(in profile: ProfileScope) -> VisitsCache { VisitsCache.live(in: profile) }

    public func stats(in profile: ProfileScope) throws -> CacheStats {
        guard let entry = cache(in: profile).load() else { return CacheStats() }
        let size = FileSystem.attributes(of: VisitsCache.url(in: profile))?.size ?? 0
        return CacheStats(files: 1, bytes: size, entries: entry.visits.count, oldest: entry.savedAt, newest: entry.savedAt)
    }

    /// Version 2: the visits' own document (`data/visits/visits.json`), copied as it is.
    /// Version 1 (archives of brados 0.3 and earlier): `data/visits/cached-visits.json`,
    /// the list taken out of the profile's shared key-value store; it is still read.
    public var dataVersion: Int { 2 }
    public var readableDataVersions: ClosedRange<Int> { 1...2 }

    /// The staged document must read as visits before anything is swapped in; a version 1
    /// export becomes the document here. Visits keep no database: any SQLite file is refused.
    public func prepareImport(cache: URL, data: URL, context: ImportContext) throws {
        try ImportedDatabases.rebuild(domain: name, cache: cache, data: data, databases: [:])
        let document = data.appendingPathComponent("visits.json")
        let legacy = data.appendingPathComponent(Self.legacyExportFileName)
        if let bytes = try AtomicFile.readIfPresent(legacy) {
            let file: LegacyExport
            do { file = try JSONCoding.decode(LegacyExport.self, from: bytes) } catch {
                let reason = InvalidIdentifier.found(in: error)?.description ?? "it is not the visits export format"
                throw ArchiveError.unsafeEntry(path: "data/\(name)/\(Self.legacyExportFileName)", reason: reason)
            }
            try FileSystem.remove(document)
            try VisitsCache(store: KeyValueStore(url: document), account: file.account).save(file.visits, at: file.savedAt, changedAt: file.changedAt)
            try FileSystem.remove(legacy)
        }
        guard let bytes = try AtomicFile.readIfPresent(document) else { return }
        if let problem = VisitsCache.problem(inDocument: bytes) {
            throw ArchiveError.unsafeEntry(path: "data/\(name)/visits.json", reason: problem)
        }
    }

    /// A replacing import leaves nothing of the profile's visits behind: not even a list an
    /// earlier brados kept in the shared key-value store, which would move back in.
    public func didImport(into profile: ProfileScope, replacing: Bool) throws {
        if replacing { try VisitsCache.clearSharedStore(of: profile) }
    }

    static let legacyExportFileName = "cached-visits.json"

    /// Cached visit ids, for shell completion (local files only).
    public static func cachedVisitIDs() -> [String] {
        VisitsCache.live(in: CompletionValues.scope().profile).load()?.visits.map(\.id) ?? []
    }

    /// A version 1 archive's visits.
    struct LegacyExport: Codable {
        var visits: [Visit]
        var savedAt: Date
        var account: String?
        /// When the list last changed (absent in archives from before it was kept: `savedAt`).
        var changedAt: Date?
    }

    public func clear(in profile: ProfileScope) throws {
        try VisitsCache.clearSharedStore(of: profile)
        for folder in folders(in: profile) { try FileSystem.remove(folder) }
    }
}

/// The visits recorded here and not sent yet are the person's: `cache clear` keeps them,
/// `auth logout` names them first.
extension VisitsPlugin: KeepsPersonalData {
    public func personalData(in profile: ProfileScope, forms: DisplayForms) throws -> PersonalData {
        let unsent = cache(in: profile).pending().map { pending in
            UnsentChange(domain: name, id: pending.id, summary: "visit at \(pending.visit.place), \(forms.minute(pending.visit.visitedAt))",
                         createdAt: pending.queuedAt, send: "brados visits list --refresh")
        }
        return PersonalData(unsent: unsent)
    }

    /// Removes the cached list and what is kept with it; the visits not sent yet stay.
    /// - Throws: ``StorageError``.
    public func clearCache(in profile: ProfileScope) throws {
        let cache = cache(in: profile)
        guard !cache.pending().isEmpty else { return try clear(in: profile) }
        try VisitsCache.clearSharedStore(of: profile)
        try cache.clear(keepingPending: true)
        try FileSystem.remove(profile.cacheDirectory(for: name))
    }

    /// Drops the visits not sent yet.
    /// - Throws: ``StorageError``.
    public func discardUnsent(in profile: ProfileScope) throws { try cache(in: profile).discardPending() }
}
