import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation
import Synchronization

/// The covers the server answered 404 for, remembered so they are not asked for again on every
/// load (the first screen's prefetch after each refresh): an album keeps the placeholder, which
/// already stands for a missing cover, until its thumb changes (another path is another entry)
/// or for ``lifetime`` (the server may have got one since). `missing.json` beside the artwork
/// (a ``KeyValueStore``: concurrent prefetches never lose each other's entries).
struct MissingArtwork: Sendable {
    /// How long a 404 is believed.
    static let lifetime: TimeInterval = 86_400

    let store: KeyValueStore
    let now: @Sendable () -> Date

    init(directory: URL, now: @escaping @Sendable () -> Date) {
        store = KeyValueStore(url: directory.appendingPathComponent("missing.json"))
        self.now = now
    }

    /// Whether the server said, within ``lifetime``, that this cover does not exist.
    func isMissing(_ identifier: String) -> Bool {
        Self.believed(store.value(Date.self, forKey: identifier), now: now())
    }

    /// Whether a 404 answered at `since` still holds at `now` (a time from the future does not).
    private static func believed(_ since: Date?, now: Date) -> Bool {
        guard let since else { return false }
        let age = now.timeIntervalSince(since)
        return age >= 0 && age < lifetime
    }

    /// Whether an entry is past ``lifetime`` (or unreadable), so a write may drop it.
    static func expired(_ since: Date?, now: Date) -> Bool {
        guard let since else { return true }
        return now.timeIntervalSince(since) >= lifetime
    }

    /// One writer at a time in this process: the store's file lock keeps other processes out,
    /// and the prefetch's four fetches at once would otherwise lose each other's entries.
    private static let writing = Mutex(())

    /// Remembers a 404 for this cover (and forgets those past ``lifetime``). A failure to write
    /// only means the cover is asked for again.
    func remember(_ identifier: String) {
        Self.writing.withLock { _ in self.write(identifier) }
    }

    /// Under the store's lock, its time read there: a writer that read the clock before another
    /// wrote would see that one's entry as from the future. Only entries past ``lifetime`` go; one
    /// from the future (another writer's, or a clock set back) is kept, and not believed.
    private func write(_ identifier: String) {
        try? store.update { snapshot in
            let now = now()
            var values = snapshot.values
            for (key, _) in values where Self.expired(snapshot.value(Date.self, forKey: key), now: now) { values[key] = nil }
            values[identifier] = try? JSONCoding.decode(JSONValue.self, from: JSONCoding.encode(now))
            snapshot = KeyValueSnapshot(values: values)
        }
    }

}
