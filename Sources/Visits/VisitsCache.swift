import BradOSCore
import Foundation
import Logging

/// The visit history cache in the profile's key-value store (the app's UserDefaults):
/// `cached_visits` (JSON array, newest first) and `cached_visits_timestamp`.
///
/// Every change is one key-value transaction, so concurrent `brados` processes never
/// interleave. A corrupt value reads as missing and is removed. Thread-safe.
public struct VisitsCache: Sendable {
    public static let visitsKey = "cached_visits"
    public static let timestampKey = "cached_visits_timestamp"

    /// The cached list and when it was saved.
    public struct Entry: Sendable, Equatable {
        public var visits: [Visit]
        public var savedAt: Date
    }

    let store: any KeyValueStoring
    let logger: Logger

    public init(store: any KeyValueStoring, logger: Logger = Logger(label: "brados.visits")) {
        self.store = store
        self.logger = logger
    }

    /// The cached visits, or `nil` when absent or corrupt (a corrupt value is removed).
    public func load() -> Entry? {
        let keysPresent = store.keys()
        guard keysPresent.contains(Self.visitsKey) else {
            logger.debug("no cached visits found")
            return nil
        }
        guard let visits = store.value([Visit].self, forKey: Self.visitsKey),
              let savedAt = store.value(Date.self, forKey: Self.timestampKey)
        else {
            logger.debug("cached visits unreadable; removed")
            try? clear(log: false)
            return nil
        }
        logger.debug("loaded \(visits.count) visits from cache")
        return Entry(visits: visits, savedAt: savedAt)
    }

    /// Replaces the cache with `visits`, stamped `savedAt`.
    /// - Throws: ``StorageError``.
    public func save(_ visits: [Visit], at savedAt: Date) throws {
        try store.update { snapshot in
            try snapshot.set(visits, forKey: Self.visitsKey)
            try snapshot.set(savedAt, forKey: Self.timestampKey)
        }
        logger.debug("saved \(visits.count) visits to cache")
    }

    /// Removes both keys.
    /// - Throws: ``StorageError``.
    public func clear(log: Bool = true) throws {
        try store.update { snapshot in
            snapshot.removeValue(forKey: Self.visitsKey)
            snapshot.removeValue(forKey: Self.timestampKey)
        }
        if log { logger.debug("cleared all cached visits") }
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
        }
    }
}
