import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Logging

/// The visit history cache: a key-value document of the visits' own,
/// `<profile data>/visits/visits.json` (``url(in:)``), with the keys of the app's UserDefaults:
/// `cached_visits` (JSON array, newest first), `cached_visits_timestamp`, the interrupted
/// deletes, and the document's format version. `cache export` copies it as it is.
///
/// Every change is one key-value transaction, so concurrent `brados` processes never
/// interleave. A corrupt value reads as missing and is removed; a document of another format
/// version (another brados's) reads as missing and is left as it is. Thread-safe.
public struct VisitsCache: Sendable {
    public static let visitsKey = "cached_visits"
    public static let timestampKey = "cached_visits_timestamp"
    /// Bumped by every change, so a fetch that started before a change never overwrites it.
    public static let generationKey = "cached_visits_generation"
    /// When the cached list last changed in any way (a fetch, an add, a delete): what `cache
    /// import --merge` compares to keep the newer copy (the timestamp is the last fetch's, for the TTL).
    public static let changedAtKey = "cached_visits_changed_at"
    /// The account the cached visits belong to; another account's cache is never served.
    public static let accountKey = "cached_visits_account"
    /// Deletes interrupted after they were sent, not settled yet (``UnsettledDelete``).
    public static let unsettledKey = "visits_unsettled_deletes"
    /// Deletes settled by a refresh, not told yet (``SettledDelete``).
    public static let settledKey = "visits_settled_deletes"
    /// Visits recorded here and not on the server yet (``PendingVisit``): the person's own,
    /// kept by `cache clear`, sent by the next refresh.
    public static let pendingKey = "visits_pending_adds"
    /// Pending visits a refresh sent (or the server refused), not told yet (``SettledAdd``).
    public static let settledAddsKey = "visits_settled_adds"
    /// The version of the document's format: what this brados writes and reads.
    public static let formatVersionKey = "visits_format_version"
    public static let formatVersion = 1
    static let allKeys = [visitsKey, timestampKey, generationKey, changedAtKey, accountKey, unsettledKey, settledKey, formatVersionKey,
                          pendingKey, settledAddsKey]
    /// What `cache clear` removes: every key but the person's own (the visits not sent yet).
    static let copyKeys = allKeys.filter { $0 != pendingKey && $0 != formatVersionKey }

    /// The visits' own document in a profile.
    public static func url(in profile: ProfileScope) -> URL {
        profile.dataDirectory(for: VisitsPlugin.domainName).appendingPathComponent("visits.json")
    }

    /// The profile's visits cache, in its own document. Visits an earlier brados kept in the
    /// profile's shared key-value store (`defaults.json`) move there first, once, every key
    /// with them (the list, when it was saved, the interrupted deletes not settled yet).
    public static func live(in profile: ProfileScope, account: String? = nil, logger: Logger = Logger(label: "brados.visits")) -> VisitsCache {
        let store = KeyValueStore(url: url(in: profile))
        if !FileSystem.exists(store.url) {
            do { try moveFromSharedStore(KeyValueStore(url: profile.defaultsFile), to: store) } catch {
                // Left where they were, and read from there again next time: nothing is lost.
                logger.warning("could not move the cached visits to \(store.url.path): \(error.logText)")
            }
        }
        return VisitsCache(store: store, account: account, logger: logger)
    }

    /// The cache of the command's profile, for its signed-in account (``account(_:)``).
    public static func live(_ env: AppEnvironment) -> VisitsCache { live(in: env.profile, account: account(env), logger: env.logger) }

    /// The signed-in account whose visits the cache may hold (another's are removed on reading).
    static func account(_ env: AppEnvironment) -> String? { env.credentials.load().credential(for: .account)?.userID }

    /// Moves the visits keys of `shared` into `own`, unless `own` already holds a document (a
    /// concurrent brados moved them first): copied in one transaction of `own`, then removed
    /// from `shared`, so a move cut short is done again rather than lost.
    /// - Throws: ``StorageError``.
    static func moveFromSharedStore(_ shared: KeyValueStore, to own: KeyValueStore) throws {
        let old = shared.snapshot()
        guard allKeys.contains(where: old.contains) else { return }
        try own.update { snapshot in
            guard !snapshot.contains(formatVersionKey) else { return }
            let values = shared.snapshot().values
            for key in allKeys { if let value = values[key] { try snapshot.set(value, forKey: key) } }
            try snapshot.set(formatVersion, forKey: formatVersionKey)
        }
        try shared.update { snapshot in allKeys.forEach { snapshot.removeValue(forKey: $0) } }
    }

    /// Removes visits an earlier brados kept in the profile's shared key-value store (`cache
    /// clear visits`: they would otherwise move back in).
    /// - Throws: ``StorageError``.
    static func clearSharedStore(of profile: ProfileScope) throws {
        let shared = KeyValueStore(url: profile.defaultsFile)
        guard allKeys.contains(where: shared.snapshot().contains) else { return }
        try shared.update { snapshot in allKeys.forEach { snapshot.removeValue(forKey: $0) } }
    }

    /// A delete sent and interrupted before the server answered: which visit it was.
    public struct UnsettledDelete: Codable, Sendable, Equatable {
        public var id: String
        public var place: String?
        public var at: Date
    }

    /// What a refresh found about an interrupted delete: whether the server had deleted the visit.
    public struct SettledDelete: Codable, Sendable, Equatable {
        public var id: String
        public var place: String?
        public var deleted: Bool

        /// The sentence a person is told.
        public var sentence: String {
            let visit = "visit \(id)\(place.map { " (\($0))" } ?? "")"
            return deleted ? "the interrupted delete of \(visit) went through: the server no longer has it."
                : "\(visit) was not deleted (the interrupted delete did not reach the server); it is back in the list."
        }
    }

    /// A visit recorded here (`visits add` with no server to take it) and not on the server
    /// yet: shown in the list as pending under its local id, sent by the next refresh.
    public struct PendingVisit: Codable, Sendable, Equatable {
        /// `local-` and 8 hex digits, until the server gives it its own.
        public var id: String
        public var visit: NewVisit
        public var queuedAt: Date
        /// Sent, and no answer came: the server may have it; the next refresh's list says.
        public var sentAt: Date?
        /// The account signed in when it was recorded (another's is never sent).
        public var account: String?

        /// As the list shows it.
        public var asVisit: Visit {
            Visit(id: id, place: visit.place, address: visit.address, visitedAt: visit.visitedAt, durationMinutes: visit.durationMinutes,
                  notes: visit.notes, createdAt: queuedAt, pending: true)
        }
    }

    /// What a refresh found of a pending visit: sent (its id now), or refused by the server.
    public struct SettledAdd: Codable, Sendable, Equatable {
        public var localID: String
        public var place: String
        /// The server's id, when it took the visit.
        public var id: String?
        /// Why the server refused it, when it did (it is no longer kept).
        public var refused: String?

        /// The sentence a person is told.
        public var sentence: String {
            if let id { return "the visit at \(place) recorded offline (\(localID)) is on the server now, as \(id)." }
            return "the server refused the visit at \(place) recorded offline (\(localID)), so it is no longer kept: \(refused ?? "refused")"
        }
    }

    /// The cached list and when it was saved.
    public struct Entry: Sendable, Equatable {
        public var visits: [Visit]
        public var savedAt: Date
        /// When the list last changed (a fetch, an add, a delete); `savedAt` in stores from before it was kept.
        public var changedAt: Date
        /// How many of ``visits`` are recorded here and not sent yet (``PendingVisit``).
        public var pending = 0

        public init(visits: [Visit], savedAt: Date, changedAt: Date? = nil) {
            self.visits = visits
            self.savedAt = savedAt
            self.changedAt = changedAt ?? savedAt
        }
    }

    let store: any KeyValueStoring
    let logger: Logger
    /// The signed-in account, when known.
    let account: String?

    public init(store: any KeyValueStoring, account: String? = nil, logger: Logger = Logger(label: "brados.visits")) {
        self.store = store
        self.account = account
        self.logger = logger
    }

    /// The cached visits, or `nil` when absent, corrupt or another account's (such a value is removed).
    /// A read is one read of the store, with no lock; only a value to remove takes the lock.
    public func load() -> Entry? {
        let snapshot = store.snapshot()
        let (read, pending) = Self.entryAndPending(in: snapshot, account: account)
        guard read.remove else {
            logger.debug("\(read.note)")
            return Self.withPending(read.entry, pending)
        }
        // Checked again under the lock: another process may have replaced it meanwhile.
        let result = (try? store.update { snapshot in
            let again = Self.entry(in: snapshot, account: account)
            if again.remove { Self.allKeys.forEach { snapshot.removeValue(forKey: $0) } }
            return again
        }) ?? (entry: nil, remove: false, note: "cached visits unreadable")
        logger.debug("\(result.note)")
        return result.entry
    }

    /// `entry` with the visits recorded here and not sent yet, in date order (newest first);
    /// an entry of its own when only they are there.
    static func withPending(_ entry: Entry?, _ pending: [PendingVisit]) -> Entry? {
        guard !pending.isEmpty else { return entry }
        var merged = entry ?? Entry(visits: [], savedAt: pending.map(\.queuedAt).max() ?? Date())
        merged.pending = pending.count
        for visit in pending.map(\.asVisit) {
            let index = merged.visits.firstIndex { $0.visitedAt < visit.visitedAt } ?? merged.visits.count
            merged.visits.insert(visit, at: index)
        }
        return merged
    }

    /// What `snapshot` holds for `account`, and whether it must go (corrupt, or another account's).
    /// The keys are read in one pass over the document (``Stored``).
    static func entry(in snapshot: KeyValueSnapshot, account: String?) -> (entry: Entry?, remove: Bool, note: String) {
        entryAndPending(in: snapshot, account: account).read
    }

    /// ``entry(in:account:)`` and the visits recorded here and not sent yet, from one read of
    /// the file (a second read for the queue alone scanned the whole file again).
    static func entryAndPending(in snapshot: KeyValueSnapshot, account: String?)
        -> (read: (entry: Entry?, remove: Bool, note: String), pending: [PendingVisit]) {
        guard let stored = snapshot.decode(Stored.self, reading: Stored.read) else {
            // Not a JSON object at all: what the keys one by one would have found (nothing).
            return ((nil, false, "no cached visits found"), [])
        }
        return (entry(of: stored, account: account), stored.pending)
    }

    private static func entry(of stored: Stored, account: String?) -> (entry: Entry?, remove: Bool, note: String) {
        if let version = stored.formatVersion, version != formatVersion {
            return (nil, false, "cached visits are in format version \(version) (another brados's); left as they are")
        }
        guard stored.visits != nil || stored.hasVisits else { return (nil, false, "no cached visits found") }
        guard let visits = stored.visits, let savedAt = stored.savedAt else {
            return (nil, true, "cached visits unreadable; removed")
        }
        if let account, let owner = stored.account, owner != account {
            return (nil, true, "cached visits belonged to another account; removed")
        }
        return (Entry(visits: visits, savedAt: savedAt, changedAt: stored.changedAt), false, "loaded \(visits.count) visits from cache")
    }

    /// The keys ``entry(in:account:)`` reads, each decoded on its own: a key that does not
    /// decode reads as absent (`hasVisits` says whether the list was there at all).
    struct Stored: Decodable {
        var formatVersion: Int?
        var visits: [Visit]?
        var hasVisits: Bool
        var savedAt: Date?
        var account: String?
        var changedAt: Date?
        /// The visits recorded here and not sent yet (none when the key is absent or unreadable).
        var pending: [PendingVisit] = []

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ name: String) { stringValue = name }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(formatVersion: Int?, visits: [Visit]?, hasVisits: Bool, savedAt: Date?, account: String?, changedAt: Date?) {
            (self.formatVersion, self.visits, self.hasVisits, self.savedAt, self.account, self.changedAt) =
                (formatVersion, visits, hasVisits, savedAt, account, changedAt)
        }

        /// The document read by ``JSONReader`` when it holds only what a cache brados wrote holds
        /// (every visit well formed, each key of the right type): ten times faster than
        /// JSONDecoder over a thousand visits (the calendar's cold export, bench/RESULTS.md).
        /// `nil` for anything else, which ``init(from:)`` then decodes leniently.
        static func read(_ data: Data) -> Stored? {
            JSONReader.read(data) { reader in
                var stored = Stored(formatVersion: nil, visits: nil, hasVisits: false, savedAt: nil, account: nil, changedAt: nil)
                func date(_ reader: inout JSONReader) throws -> Date? {
                    if try reader.isNull() { return nil }
                    guard let date = JSONCoding.date(from: try reader.string()) else { throw JSONReader.Unreadable() }
                    return date
                }
                var seen = JSONReader.Duplicates()
                try reader.object { reader, key in
                    switch key {
                    case VisitsCache.formatVersionKey: try seen.insert(0); stored.formatVersion = try reader.isNull() ? nil : reader.int()
                    case VisitsCache.visitsKey:
                        try seen.insert(1)
                        stored.hasVisits = true
                        if try reader.isNull() { return }
                        var visits: [Visit] = []
                        try reader.array { reader in visits.append(try Visit.read(&reader)) }
                        stored.visits = visits
                    case VisitsCache.timestampKey: try seen.insert(2); stored.savedAt = try date(&reader)
                    case VisitsCache.accountKey: try seen.insert(3); stored.account = try reader.isNull() ? nil : reader.string()
                    case VisitsCache.changedAtKey: try seen.insert(4); stored.changedAt = try date(&reader)
                    case VisitsCache.pendingKey:
                        // An empty queue here; one with visits in it is JSONDecoder's to read.
                        try seen.insert(5)
                        if try reader.isNull() { return }
                        try reader.array { _ in throw JSONReader.Unreadable() }
                    default: try reader.skip()
                    }
                }
                return stored
            }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            formatVersion = try? container.decodeIfPresent(Int.self, forKey: Key(VisitsCache.formatVersionKey))
            hasVisits = container.contains(Key(VisitsCache.visitsKey))
            visits = try? container.decodeIfPresent([Visit].self, forKey: Key(VisitsCache.visitsKey))
            savedAt = try? container.decodeIfPresent(Date.self, forKey: Key(VisitsCache.timestampKey))
            account = try? container.decodeIfPresent(String.self, forKey: Key(VisitsCache.accountKey))
            changedAt = try? container.decodeIfPresent(Date.self, forKey: Key(VisitsCache.changedAtKey))
            pending = (try? container.decodeIfPresent([PendingVisit].self, forKey: Key(VisitsCache.pendingKey))) ?? []
        }
    }

    /// Why the bytes of a document are not this brados's visits (an import's check), or `nil`.
    static func problem(inDocument bytes: Data) -> String? {
        guard let values = try? JSONCoding.decode([String: JSONValue].self, from: bytes) else { return "it is not a key-value document" }
        let snapshot = KeyValueSnapshot(values: values)
        if let version = snapshot.value(Int.self, forKey: formatVersionKey), version != formatVersion {
            return "its format version is \(version), and this brados reads \(formatVersion)"
        }
        if snapshot.contains(visitsKey) {
            guard let raw = values[visitsKey] else { return "its visits do not read" }
            do { _ = try JSONCoding.decode([Visit].self, from: JSONCoding.encode(raw)) } catch {
                return InvalidIdentifier.found(in: error)?.description ?? "its visits do not read"
            }
            guard snapshot.value(Date.self, forKey: timestampKey) != nil else { return "its visits have no time they were saved" }
        }
        return nil
    }

    /// The current generation (0 when nothing is cached).
    public func generation() -> Int {
        store.value(Int.self, forKey: Self.generationKey) ?? 0
    }

    /// Replaces the cache with `visits`, stamped `savedAt`.
    /// - Parameter expectedGeneration: save only if nothing changed the cache since this
    ///   generation was read (a delete, an add, a logout): a fetch never undoes them.
    /// - Returns: whether it saved.
    /// - Throws: ``StorageError``.
    @discardableResult
    public func save(_ visits: [Visit], at savedAt: Date, expectedGeneration: Int? = nil, changedAt: Date? = nil) throws -> Bool {
        let saved = try store.update { snapshot -> Bool in
            let current = snapshot.value(Int.self, forKey: Self.generationKey) ?? 0
            if let expectedGeneration, expectedGeneration != current { return false }
            try snapshot.set(visits, forKey: Self.visitsKey)
            try snapshot.set(savedAt, forKey: Self.timestampKey)
            try snapshot.set(changedAt ?? savedAt, forKey: Self.changedAtKey)
            try snapshot.set(current + 1, forKey: Self.generationKey)
            try snapshot.set(Self.formatVersion, forKey: Self.formatVersionKey)
            if let account { try snapshot.set(account, forKey: Self.accountKey) }
            return true
        }
        logger.debug(saved ? "saved \(visits.count) visits to cache" : "cache changed during the fetch; kept the newer cache")
        return saved
    }

    /// Removes every visits key (`keepingPending`: but the visits not sent yet, the person's own).
    /// - Throws: ``StorageError``.
    public func clear(log: Bool = true, keepingPending: Bool = false) throws {
        try store.update { snapshot in (keepingPending ? Self.copyKeys : Self.allKeys).forEach { snapshot.removeValue(forKey: $0) } }
        if log { logger.debug("cleared all cached visits") }
    }

    // MARK: Visits recorded here, not sent yet

    /// The visits recorded here and not on the server yet, oldest first.
    public func pending() -> [PendingVisit] { store.value([PendingVisit].self, forKey: Self.pendingKey) ?? [] }

    /// Records `visit` to be sent by the next refresh; `sent`: it was sent and no answer came.
    /// - Returns: it as the list shows it (pending, with its local id).
    /// - Throws: ``StorageError``.
    public func queue(_ visit: NewVisit, at date: Date, sent: Bool = false) throws -> Visit {
        let pending = PendingVisit(id: "local-" + String(format: "%08x", UInt32.random(in: 0...UInt32.max)), visit: visit, queuedAt: date,
                                   sentAt: sent ? date : nil, account: account)
        try store.update { snapshot in
            try snapshot.set((snapshot.value([PendingVisit].self, forKey: Self.pendingKey) ?? []) + [pending], forKey: Self.pendingKey)
            try snapshot.set(Self.formatVersion, forKey: Self.formatVersionKey)
            try Self.bump(&snapshot)
        }
        return pending.asVisit
    }

    /// Settles a pending visit: it leaves the pending list, and (sent) the server's visit takes
    /// its place in the list; what happened waits to be told (``takeSettledAdds()``).
    /// - Throws: ``StorageError``.
    public func settle(_ id: String, created: Visit?, refused: String? = nil) throws {
        try store.update { snapshot in
            var pending = snapshot.value([PendingVisit].self, forKey: Self.pendingKey) ?? []
            guard let index = pending.firstIndex(where: { $0.id == id }) else { return }
            let settled = pending.remove(at: index)
            if pending.isEmpty { snapshot.removeValue(forKey: Self.pendingKey) } else { try snapshot.set(pending, forKey: Self.pendingKey) }
            if let created, var visits = snapshot.value([Visit].self, forKey: Self.visitsKey) {
                visits.removeAll { $0.id == created.id }
                visits.insert(created, at: visits.firstIndex { $0.visitedAt < created.visitedAt } ?? visits.count)
                try snapshot.set(visits, forKey: Self.visitsKey)
            }
            let told = SettledAdd(localID: id, place: settled.visit.place, id: created?.id, refused: refused)
            try snapshot.set((snapshot.value([SettledAdd].self, forKey: Self.settledAddsKey) ?? []) + [told], forKey: Self.settledAddsKey)
            try Self.bump(&snapshot)
        }
    }

    /// Marks a pending visit sent without an answer (the next list settles it), or not (`nil`: send it again).
    /// - Throws: ``StorageError``.
    public func markSent(_ id: String, at date: Date?) throws {
        try store.update { snapshot in
            guard var pending = snapshot.value([PendingVisit].self, forKey: Self.pendingKey),
                  let index = pending.firstIndex(where: { $0.id == id }) else { return }
            pending[index].sentAt = date
            try snapshot.set(pending, forKey: Self.pendingKey)
        }
    }

    /// Drops the visits not sent yet (`--discard-pending`).
    /// - Throws: ``StorageError``.
    public func discardPending() throws {
        try store.update { snapshot in
            guard snapshot.contains(Self.pendingKey) else { return }
            snapshot.removeValue(forKey: Self.pendingKey)
            try Self.bump(&snapshot)
        }
    }

    /// The pending visits settled and not told yet, forgotten once taken.
    /// - Throws: ``StorageError``.
    public func takeSettledAdds() throws -> [SettledAdd] {
        guard store.value([SettledAdd].self, forKey: Self.settledAddsKey) != nil else { return [] }
        return try store.update { snapshot in
            defer { snapshot.removeValue(forKey: Self.settledAddsKey) }
            return snapshot.value([SettledAdd].self, forKey: Self.settledAddsKey) ?? []
        }
    }

    /// Removes one visit, returning it and its position so it can be restored exactly.
    /// - Throws: ``StorageError``.
    public func remove(id: String) throws -> (visit: Visit, index: Int)? {
        try store.update { snapshot in
            guard var visits = snapshot.value([Visit].self, forKey: Self.visitsKey),
                  let index = visits.firstIndex(where: { $0.id == id })
            else { return nil }
            let visit = visits.remove(at: index)
            try snapshot.set(visits, forKey: Self.visitsKey)
            try Self.bump(&snapshot)
            return (visit, index)
        }
    }

    /// Puts a removed visit back where it was (unless it is back already). The timestamp is untouched.
    /// - Throws: ``StorageError``.
    public func restore(_ visit: Visit, at index: Int) throws {
        try store.update { snapshot in
            guard var visits = snapshot.value([Visit].self, forKey: Self.visitsKey),
                  !visits.contains(where: { $0.id == visit.id })
            else { return }
            visits.insert(visit, at: min(index, visits.count))
            try snapshot.set(visits, forKey: Self.visitsKey)
            try Self.bump(&snapshot)
        }
        logger.debug("restored visit \(visit.id) to the cache")
    }

    /// Adds a visit created on the server to an existing cache, newest first.
    /// - Throws: ``StorageError``.
    public func insert(_ visit: Visit) throws {
        try store.update { snapshot in
            guard var visits = snapshot.value([Visit].self, forKey: Self.visitsKey) else { return }
            visits.removeAll { $0.id == visit.id }
            let index = visits.firstIndex { $0.visitedAt < visit.visitedAt } ?? visits.count
            visits.insert(visit, at: index)
            try snapshot.set(visits, forKey: Self.visitsKey)
            try Self.bump(&snapshot)
        }
    }

    /// Marks a delete interrupted after it was sent: the visit stays out of the list until a
    /// refresh settles it.
    /// - Throws: ``StorageError``.
    public func markUnsettledDelete(id: String, place: String?, at date: Date) throws {
        try store.update { snapshot in
            var marks = snapshot.value([UnsettledDelete].self, forKey: Self.unsettledKey) ?? []
            marks.removeAll { $0.id == id }
            marks.append(UnsettledDelete(id: id, place: place, at: date))
            try snapshot.set(marks, forKey: Self.unsettledKey)
        }
    }

    /// The deletes interrupted after they were sent, not settled yet.
    public func unsettledDeletes() -> [UnsettledDelete] { store.value([UnsettledDelete].self, forKey: Self.unsettledKey) ?? [] }

    /// Settles the interrupted deletes marked before `asked` (when the list was asked for:
    /// a list asked for earlier says nothing of a later delete) against the list the server
    /// gave (`serverIDs`): a visit it still has was not deleted, one it has not was. The
    /// outcomes wait to be told (``takeSettled()``) by the next command a person runs, whoever refreshed.
    /// - Returns: what was settled now.
    /// - Throws: ``StorageError``.
    @discardableResult
    public func settleDeletes(serverIDs: Set<String>, asked: Date) throws -> [SettledDelete] {
        guard unsettledDeletes().contains(where: { $0.at < asked }) else { return [] }
        return try store.update { snapshot in
            let marks = snapshot.value([UnsettledDelete].self, forKey: Self.unsettledKey) ?? []
            let due = marks.filter { $0.at < asked }
            let settled = due.map { SettledDelete(id: $0.id, place: $0.place, deleted: !serverIDs.contains($0.id)) }
            try snapshot.set(marks.filter { $0.at >= asked }, forKey: Self.unsettledKey)
            try snapshot.set((snapshot.value([SettledDelete].self, forKey: Self.settledKey) ?? []) + settled, forKey: Self.settledKey)
            return settled
        }
    }

    /// The settled deletes not told yet, forgotten once taken.
    /// - Throws: ``StorageError``.
    public func takeSettled() throws -> [SettledDelete] {
        guard store.value([SettledDelete].self, forKey: Self.settledKey) != nil else { return [] }
        return try store.update { snapshot in
            defer { snapshot.removeValue(forKey: Self.settledKey) }
            return snapshot.value([SettledDelete].self, forKey: Self.settledKey) ?? []
        }
    }

    private static func bump(_ snapshot: inout KeyValueSnapshot) throws {
        try snapshot.set((snapshot.value(Int.self, forKey: generationKey) ?? 0) + 1, forKey: generationKey)
        // Never earlier than the last change (a clock set back, a fetch dated ahead): a later change is always newer.
        let last = snapshot.value(Date.self, forKey: changedAtKey) ?? snapshot.value(Date.self, forKey: timestampKey) ?? .distantPast
        try snapshot.set(max(Date(), last.addingTimeInterval(0.001)), forKey: changedAtKey)
    }
}
