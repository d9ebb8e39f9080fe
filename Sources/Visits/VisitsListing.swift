import BradOSCore
import Foundation
import Logging

/// `brados visits list`: stale-while-revalidate, made natural for a terminal.
///
/// - Fresh cache: printed at once. Interactive (a TTY, human output): then revalidated while
///   the command waits, re-rendered only if something changed. Scripts (`--json`, pipes):
///   exactly one document, and revalidation runs in a detached background process so the
///   script never waits on the server.
/// - Stale cache: fetched first; on a network failure or 5xx, the stale cache is shown with a
///   one-line notice of its age (stale-if-error), exit 0.
/// - No cache: fetched; offline → the needs-network error.
/// - `--offline`: the cache at any age, never the network. `--refresh`: the network only.
public struct VisitsListing: Sendable {
    /// Reads with a cached fallback retry once, after 0.5 s: the user has something to look at.
    public static let readPolicy = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(500))

    public typealias Mode = CachedThenRefresh<[Visit]>.Mode

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

    /// Runs the shared ``CachedThenRefresh`` mechanism over the visits cache.
    @discardableResult
    public func run(refresh: Bool) async throws -> Outcome {
        let store = self.store
        let renderer = self.renderer
        var changes: VisitChanges?
        let flow = CachedThenRefresh<[Visit]>(
            mode: mode, offline: offline, io: renderer.output.io, noun: "visits",
            fetch: { _ in try await store.fetch() },
            render: { visits, source in
                switch source {
                case let .cache(age, stale): try renderer.render(visits, source: .cache(age: age, stale: stale))
                case .network: try renderer.render(visits, source: .network)
                }
            },
            rerenderIfChanged: { old, new in
                let found = VisitChanges(from: old, to: new)
                changes = found
                if found.isEmpty { return false }
                try renderer.rerender(new, changes: found)
                return true
            },
            notice: renderer.notice,
            startBackgroundRefresh: startBackgroundRevalidation)
        switch try await flow.run(store.state(), refresh: refresh) {
        case .cached: return .cached(changes: changes)
        case .refreshingInBackground: return .revalidatingInBackground
        case .fetched: return .fetched
        case .staleFallback: return .staleFallback
        case .offlineCache: return .offlineCache
        }
    }
}
