import BradOSCore
import Foundation
import Logging
import Synchronization

extension LibraryRepository {
    /// How the library's snapshot is brought up to date, by what changed:
    /// 1. `/library/sections` (always asked, to choose the section): its `contentChangedAt`
    ///    has not moved since the snapshot → nothing else is asked.
    /// 2. Otherwise the albums updated after the last second every update of which the
    ///    snapshot holds (`updatedAt>>=T`, Plex's strict "after"), and the section's count (a
    ///    page of size 0). That second is the one before the server's clock (`Date`) when it
    ///    last answered (``AlbumChanges/seenThrough``), so albums a bulk import stamped with
    ///    one second long ago are never listed again; a server without `Date` has the newest
    ///    update's second asked again.
    /// 3. An album deleted on the server shows only as a count that no longer matches. Plex
    ///    has no id-only listing, but it counts and lists by `addedAt`: the section is halved
    ///    by when albums were added (``CountBisection``) until the ranges whose counts differ
    ///    are small (``leafSize``), and only those are listed. Every added album was read in
    ///    step 2, so a delete cannot be cancelled out by an add. Albums added in one second
    ///    cannot be split (an import adds thousands at once); when listing such ranges would
    ///    cost more than listing the section (``CountBisection/listBudget``), the refresh
    ///    downloads every album instead: a refresh never costs more than starting over.
    /// Once a day (``wholeInterval``) a refresh downloads every album instead, which bounds
    /// what the delta path cannot see (a change that does not move `updatedAt`, if Plex has
    /// any); `--full` does it at once.
    /// The collections (a few, one request) are read again whenever the content moved.
    public enum Refresh {
        /// How old the last download of every album may be before a refresh downloads them all again.
        public static let wholeInterval: TimeInterval = 24 * 3600

        /// A range the server holds at most this many albums of is listed rather than halved:
        /// a count answer is ~500 bytes and an album ~650 with every field a real server
        /// sends, so leaves of 16 albums (~10 KB) after a few more counts cost less than
        /// leaves of 100 (~65 KB): each change then costs about 16 KB (bench/scale.py).
        public static let leafSize = 16

        /// The delta would list more albums than the section holds: the refresh lists every album.
        struct Costlier: Error {}

        /// What changed since `cursor`: the albums updated since (and any the halving found
        /// missing here), the rating keys the server no longer lists, and the new cursor.
        /// - Throws: ``Costlier`` when finding the deletions would list more albums than the section holds.
        static func changes(_ api: any PlexAPI, section: String, since cursor: Int, database: LibraryCache,
                            progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> (albums: [Album], deletions: Set<String>, newest: Int?) {
            let changed = try await api.albums(section: section, updatedAfter: cursor, progress: progress)
            let total = try await api.albumCount(section: section, addedIn: .all)
            let held = try database.count(holding: changed.albums.map(\.ratingKey))
            let changedKeys = Set(changed.albums.map(\.ratingKey))
            var albums = changed.albums, deletions = Set<String>()
            if held.total + changedKeys.subtracting(held.held).count != total {
                // The local side as it will be: what is held, with the changed albums' new addedAt.
                var added = Dictionary(try database.addedIndex().map { ($0.key, $0.added) }, uniquingKeysWith: { first, _ in first })
                for album in changed.albums { added[album.ratingKey] = album.addedAt ?? 0 }
                let listed = Listed()
                var search = bisection(api, section: section, local: added.map { (added: $0.value, key: $0.key) }, listed: listed)
                search.listBudget = max(0, total - changed.albums.count)
                let found: (missing: Set<String>, extra: Set<String>)
                do { found = try await search.differences(serverCount: total) } catch is CountBisection<Int>.OverBudget { throw Costlier() }
                deletions = found.extra
                albums += found.missing.compactMap { key in listed.albums.withLock { $0[key] } }
            }
            // A listing of several answers may have missed an album updated meanwhile on a page
            // already read: the cursor stays where it was, and the next refresh asks again.
            return (albums, deletions, changed.inOneAnswer ? changed.seenThrough : nil)
        }

        /// The albums the ranges' listings brought, by rating key.
        final class Listed: Sendable {
            let albums = Mutex<[String: Album]>([:])
        }

        /// Counting halves of the section by `addedAt`; the albums of the ranges it lists go to `listed`.
        static func bisection(_ api: any PlexAPI, section: String, local: [(added: Int, key: String)], listed: Listed) -> CountBisection<Int> {
            let sorted = local.sorted { $0.added < $1.added }
            let times = sorted.map(\.added)
            /// The indices of `sorted` within a range (binary search on the sorted times).
            @Sendable func span(_ range: KeyRange<Int>) -> Swift.Range<Int> {
                func firstIndex(atLeast bound: Int?) -> Int {
                    guard let bound else { return 0 }
                    var low = 0, high = times.count
                    while low < high { let mid = (low + high) / 2; if times[mid] < bound { low = mid + 1 } else { high = mid } }
                    return low
                }
                return firstIndex(atLeast: range.lower)..<(range.upper.map { firstIndex(atLeast: $0) } ?? times.count)
            }
            return CountBisection(
                listLimit: leafSize,
                localCount: { span($0).count },
                middle: { range in
                    let indices = span(range)
                    guard indices.count > 1 else { return nil }
                    let median = times[indices.lowerBound + indices.count / 2], lowest = times[indices.lowerBound]
                    if median > lowest { return median }
                    return times[indices].first { $0 > lowest }
                },
                localIDs: { Set(sorted[span($0)].map(\.key)) },
                serverCount: { try await api.albumCount(section: section, addedIn: $0) },
                serverIDs: { range in
                    let albums = try await api.albums(section: section, addedIn: range)
                    listed.albums.withLock { for album in albums { $0[album.ratingKey] = album } }
                    return Set(albums.map(\.ratingKey))
                })
        }
    }
}
