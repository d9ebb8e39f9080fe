import Foundation

/// A span of keys (times, dates), `lower` included and `upper` excluded; `nil` bounds are open.
public struct KeyRange<Bound: Comparable & Sendable>: Sendable, Equatable {
    public var lower: Bound?
    public var upper: Bound?

    public init(from lower: Bound? = nil, to upper: Bound? = nil) {
        self.lower = lower
        self.upper = upper
    }

    /// Every key.
    public static var all: KeyRange { KeyRange() }

    public func contains(_ key: Bound) -> Bool {
        lower.map { key >= $0 } ?? true && upper.map { key < $0 } ?? true
    }
}

/// Where a local copy and its server differ, found by counting halves instead of listing
/// every id: for servers that count rows cheaply (PostgREST's `count=exact`, Plex's
/// `totalSize`) but have no change feed or tombstones.
///
/// The local rows of a range are split at their middle key; the server counts one half (one
/// request, no rows) and the other half's count follows from the range's. Only halves whose
/// counts differ are looked into, and a range the server holds at most ``listLimit`` rows of
/// is compared id by id. With k differences among n rows that is about k·log₂(n/listLimit)
/// counts and k small listings, rather than n ids.
///
/// What it cannot see: a half whose counts agree is not looked into, so a row deleted and
/// another added in the same half cancel out there. Callers bound how long that can last
/// (a whole check at an interval) and say so.
///
/// Rows that share one key cannot be split: such a range is listed whole however large (a
/// bulk import gives thousands of rows one second). ``listBudget`` bounds what the search may
/// list in all, so that it never costs more than listing everything.
public struct CountBisection<Bound: Comparable & Sendable>: Sendable {
    public typealias Range = KeyRange<Bound>

    /// The search would list more rows than ``listBudget``: listing every row costs less.
    public struct OverBudget: Error, Equatable {
        /// The rows it would have listed by then.
        public var rows: Int
    }

    /// A range the server holds at most this many rows of is listed by id.
    public var listLimit: Int
    /// The most rows the search may list in all (`nil`: no bound); past it, ``OverBudget`` is thrown.
    public var listBudget: Int?
    /// The local rows in a range.
    public var localCount: @Sendable (Range) throws -> Int
    /// A key that splits the local rows of a range into two non-empty halves (about the
    /// median), or `nil` when they all share one key.
    public var middle: @Sendable (Range) throws -> Bound?
    /// The ids of the local rows in a range.
    public var localIDs: @Sendable (Range) throws -> Set<String>
    /// The server's row count in a range.
    public var serverCount: @Sendable (Range) async throws -> Int
    /// The ids of the server's rows in a range.
    public var serverIDs: @Sendable (Range) async throws -> Set<String>

    public init(listLimit: Int, localCount: @escaping @Sendable (Range) throws -> Int, middle: @escaping @Sendable (Range) throws -> Bound?,
                localIDs: @escaping @Sendable (Range) throws -> Set<String>, serverCount: @escaping @Sendable (Range) async throws -> Int,
                serverIDs: @escaping @Sendable (Range) async throws -> Set<String>) {
        self.listLimit = listLimit
        self.localCount = localCount
        self.middle = middle
        self.localIDs = localIDs
        self.serverCount = serverCount
        self.serverIDs = serverIDs
    }

    /// The ids the server has and the copy lacks, and those the copy has and the server lacks.
    /// - Parameters:
    ///   - range: where to look (everything by default).
    ///   - serverCount: the server's count of `range`, already known.
    /// - Throws: what the closures throw.
    /// - Throws: ``OverBudget`` before listing past ``listBudget`` rows; what the closures throw.
    public func differences(in range: Range = .all, serverCount: Int) async throws -> (missing: Set<String>, extra: Set<String>) {
        let listed = Listed()
        return try await differences(in: range, serverCount: serverCount, listed: listed)
    }

    /// The rows listed so far by one search.
    private final class Listed: @unchecked Sendable {
        var rows = 0  // the search runs one step at a time: never two writers
    }

    private func differences(in range: Range, serverCount: Int, listed: Listed) async throws -> (missing: Set<String>, extra: Set<String>) {
        let local = try localCount(range)
        if local == serverCount { return ([], []) }
        guard serverCount > listLimit, let middle = try middle(range) else {
            if let listBudget, listed.rows + serverCount > listBudget { throw OverBudget(rows: listed.rows + serverCount) }
            listed.rows += serverCount
            let remote = try await serverIDs(range)
            let held = try localIDs(range)
            return (remote.subtracting(held), held.subtracting(remote))
        }
        let lower = Range(from: range.lower, to: middle), upper = Range(from: middle, to: range.upper)
        let lowerCount = try await self.serverCount(lower)
        let below = try await differences(in: lower, serverCount: lowerCount, listed: listed)
        let above = try await differences(in: upper, serverCount: serverCount - lowerCount, listed: listed)
        return (below.missing.union(above.missing), below.extra.union(above.extra))
    }
}
