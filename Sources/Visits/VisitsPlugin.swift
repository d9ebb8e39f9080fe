import ArgumentParser
import BradOSCore
import Foundation

/// The visits domain: visit history, stale-while-revalidate with a TTL, optimistic delete.
/// Its cache lives in the profile's key-value store, so its cache ownership is those two keys.
public struct VisitsPlugin: DomainPlugin {
    public static let domainName = "visits"
    public static let ttlKey = "visits.ttl"

    public init() {}
    public var name: String { Self.domainName }
    public var summary: String { "Visit history: instant from cache, revalidated behind it (5-minute TTL)." }
    public var command: any ParsableCommand.Type { VisitsCommand.self }

    public var configKeys: [ConfigKey] {
        [ConfigKey(name: Self.ttlKey, summary: "How long cached visits count as fresh",
                   environmentVariable: "BRADOS_VISITS_TTL", defaultValue: "5m", validate: ConfigKey.durationValidator)]
    }

    func cache(in profile: ProfileScope) -> VisitsCache {
        VisitsCache(store: KeyValueStore(url: profile.defaultsFile))
    }

    public func stats(in profile: ProfileScope) throws -> CacheStats {
        guard let entry = cache(in: profile).load() else { return CacheStats() }
        let bytes = Int64((try? JSONCoding.encode(entry.visits).count) ?? 0)
        // Two keys in the profile's key-value store count as one stored item.
        return CacheStats(files: 1, bytes: bytes, newest: entry.savedAt)
    }

    public func clear(in profile: ProfileScope) throws {
        try cache(in: profile).clear()
        for folder in folders(in: profile) { try FileSystem.remove(folder) }
    }
}
