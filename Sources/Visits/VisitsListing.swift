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

    public enum Mode: Sendable { case interactive, script }

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

    @discardableResult
    public func run(refresh: Bool) async throws -> Outcome {
        if refresh {
            if offline { throw NetworkError.offlineMode }
            let visits = try await withSpinner { try await store.fetch() }
            try renderer.render(visits, source: .network)
            return .fetched
        }
        switch store.state() {
        case let .fresh(entry, age):
            try renderer.render(entry.visits, source: .cache(age: age, stale: false))
            if offline { return .offlineCache }
            switch mode {
            case .script:
                do { try startBackgroundRevalidation() } catch {
                    store.logger.info("could not start background revalidation: \(error)")
                }
                return .revalidatingInBackground
            case .interactive:
                do {
                    let fresh = try await withSpinner(message: "checking for new visits…") { try await store.fetch() }
                    let changes = VisitChanges(from: entry.visits, to: fresh)
                    if !changes.isEmpty { try renderer.rerender(fresh, changes: changes) }
                    return .cached(changes: changes)
                } catch let error as any BradOSError where Self.fallsBack(error) {
                    renderer.notice("could not check for new visits: \(error.summary)")
                    return .cached(changes: nil)
                }
            }
        case let .stale(entry, age):
            if offline {
                try renderer.render(entry.visits, source: .cache(age: age, stale: true))
                renderer.notice("offline: showing cached visits from \(Format.ago(age)).")
                return .offlineCache
            }
            do {
                let visits = try await withSpinner { try await store.fetch() }
                try renderer.render(visits, source: .network)
                return .fetched
            } catch let error as any BradOSError where Self.fallsBack(error) {
                renderer.notice("showing cached visits from \(Format.ago(age)): \(error.summary)")
                try renderer.render(entry.visits, source: .cache(age: age, stale: true))
                return .staleFallback
            }
        case .missing:
            if offline { throw NetworkError.offlineMode }
            let visits = try await withSpinner { try await store.fetch() }
            try renderer.render(visits, source: .network)
            return .fetched
        }
    }

    /// Network failures and server errors fall back to the cache; auth and other 4xx do not.
    static func fallsBack(_ error: any BradOSError) -> Bool {
        error.kind == .offline || error.kind == .server
    }

    /// Runs `body` with a spinner on stderr, in interactive mode only (scripts get none).
    private func withSpinner<T: Sendable>(message: String = "fetching visits…", _ body: () async throws -> T) async throws -> T {
        guard mode == .interactive else { return try await body() }
        let spinner = Spinner(io: renderer.output.io, message: message)
        defer { spinner.stop() }
        return try await body()
    }
}
