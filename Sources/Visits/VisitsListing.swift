import BradOSCore
import Foundation
import Logging

/// `brados visits list`: the visits ``CachePolicy`` (stale-while-revalidate) carried out by
/// ``CachedRead``, with the visits renderer and the list of what changed.
public struct VisitsListing: Sendable {
    /// Reads with a cached fallback retry once, after 0.5 s: the user has something to look at.
    public static let readPolicy = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(500))

    public typealias Mode = CachedRead<[Visit]>.Mode

    /// What happened (for tests and logs).
    public enum Outcome: Sendable, Equatable {
        case cached(changes: VisitChanges?)
        case revalidatingInBackground
        case fetched
        case staleFallback
        case offlineCache
    }

    let store: VisitsStore
    let renderer: VisitsRenderer
    let mode: Mode
    let offline: Bool
    let startBackgroundRevalidation: @Sendable () throws -> Void

    public init(store: VisitsStore, renderer: VisitsRenderer, mode: Mode, offline: Bool,
                startBackgroundRevalidation: @escaping @Sendable () throws -> Void) {
        self.store = store
        self.renderer = renderer
        self.mode = mode
        self.offline = offline
        self.startBackgroundRevalidation = startBackgroundRevalidation
    }

    /// Carries out the visits ``CachePolicy`` with the shared ``CachedRead``.
    @discardableResult
    public func run(refresh: Bool) async throws -> Outcome {
        let store = self.store
        let renderer = self.renderer
        var changes: VisitChanges?
        let read = CachedRead<[Visit]>(
            policy: store.policy, mode: mode, offline: offline, noun: "visits", io: renderer.output.io, now: store.now,
            fetch: { _ in try await store.fetch() },
            render: { try renderer.render($0, source: $1) },
            rerenderIfChanged: { old, new in
                let found = VisitChanges(from: old, to: new)
                changes = found
                if found.isEmpty { return false }
                try renderer.rerender(new, changes: found)
                return true
            },
            notice: renderer.notice,
            startBackgroundRefresh: startBackgroundRevalidation, refreshStamp: store.refreshStamp)
        switch try await read.run(store.entry(), refresh: refresh) {
        case .cached: return .cached(changes: changes)
        case .refreshingInBackground: return .revalidatingInBackground
        case .fetched: return .fetched
        case .staleFallback: return .staleFallback
        case .offlineCache: return .offlineCache
        }
    }
}
