import BradOSErrors
import BradOSNetworking
import BradOSTerminal
import Foundation
import Logging

/// The one mechanism that carries out a ``CachePolicy`` for every domain's reads: given a
/// ``CachedResource``, it shows the stored copy, fetches, or both, and says where the shown
/// data came from (``DataSource``). Commands get theirs from ``AppEnvironment/reader``.
///
/// A read with a stored copy never holds the prompt for the server (stale-while-revalidate
/// in a terminal): the copy is shown and the command returns in the time of a read from the
/// cache, while a detached background process (``CachedResource/backgroundRefresh``)
/// refreshes it for the next read; `refresh.wait` (``wait``) lets a read wait that long for
/// the server first. Only a read with nothing stored, or `--refresh`, waits for the server,
/// and says what for.
///
/// - No copy: fetched; offline → the resource's ``CachedResource/unavailable(_:)`` error. A
///   stand-in (``CachedEntry/standIn``) is fetched too, and shown only when that fails.
/// - A fresh copy: shown, no request.
/// - A copy due a refresh, or stale: shown (a stale one with a notice of its age), and
///   refreshed in the background; what the last background refresh failed with is told.
///   With ``wait``: the server is given that long first (its answer shown instead, or on a
///   terminal what changed shown after the copy). A resource with no background refresh, or
///   a reader that cannot start one (``answer(_:refresh:)``), refreshes in the foreground:
///   a copy due a refresh is shown and then revalidated, a stale one fetched first with the
///   copy as the answer to a failure the policy answers.
/// - `refresh`: the network only.
///
/// Threading: one read at a time per reader value; progress is drawn from a background task.
public struct CacheReader: Sendable {
    /// Interactive: a terminal and human output. Script: `--json` or a pipe (one document, no progress).
    public enum Mode: Sendable, Equatable { case interactive, script }

    /// What happened (for tests and logs).
    public enum Outcome: Sendable, Equatable {
        /// A fresh copy was shown; a refresh then found changes (true), none (false), or
        /// could not run or was not due (nil).
        case cached(changed: Bool?)
        case refreshingInBackground
        case fetched
        case staleFallback
        case offlineCache
    }

    public var mode: Mode
    /// `--offline`: no request at all.
    public var offline: Bool
    /// Where progress goes in interactive mode; `nil`: none.
    public var io: (any TerminalIO)?
    public var now: @Sendable () -> Date
    /// One-line notices on stderr.
    public var notice: @Sendable (String) -> Void
    /// Starts a resource's ``BackgroundRefresh`` command detached; `nil`: background refreshes
    /// are off (every refresh runs in the foreground).
    public var startInBackground: (@Sendable ([String]) throws -> Void)?
    /// How long a read with a stored copy waits for the server before it shows the copy and
    /// leaves the refresh to the background (`refresh.wait`): zero by default, never waits.
    public var wait: Duration
    /// The clock ``wait`` is measured on.
    public var clock: any Clock<Duration>
    /// Where each fetch's operation line goes (``OperationLog``: `visits.refresh ok in 112 ms`).
    public var logger: Logger

    public init(mode: Mode, offline: Bool, io: (any TerminalIO)? = nil, now: @escaping @Sendable () -> Date,
                notice: @escaping @Sendable (String) -> Void = { _ in },
                startInBackground: (@Sendable ([String]) throws -> Void)? = nil,
                wait: Duration = .zero, clock: any Clock<Duration> = ContinuousClock(), logger: Logger = Logger(label: "brados")) {
        self.logger = logger
        self.mode = mode
        self.offline = offline
        self.io = io
        self.now = now
        self.notice = notice
        self.startInBackground = startInBackground
        self.wait = wait
        self.clock = clock
    }

    /// Carries out `resource`'s policy, showing what it reads with `presenter`.
    /// - Parameter refresh: skip the stored copy and fetch (`--refresh`).
    /// - Returns: what happened, and the value shown last.
    /// - Throws: the fetch's errors the policy does not answer (any, when nothing is stored;
    ///   offline with nothing stored, ``CachedResource/unavailable(_:)``), and the presenter's.
    @discardableResult
    public func show<Resource: CachedResource, Presenter: CachePresenter>(
        _ resource: Resource, with presenter: Presenter, refresh: Bool = false
    ) async throws -> (outcome: Outcome, shown: Resource.Value) where Presenter.Value == Resource.Value {
        var shown: Resource.Value?
        let outcome = try await Run(reader: self, resource: resource, render: { value, source in
            shown = value
            try presenter.render(value, source: source)
        }, rerender: { old, new in
            shown = new
            return try presenter.rerender(old: old, new: new)
        }).run(refresh: refresh)
        // Every path of `run` shows a value or throws.
        guard let shown else { throw resource.unavailable(NetworkError.offlineMode) }
        return (outcome, shown)
    }

    /// Carries out `resource`'s policy and returns the answer instead of showing it (script
    /// mode: no early presentation, no background refresh, no progress).
    /// - Returns: the value and where it came from.
    /// - Throws: as ``show(_:with:refresh:)``.
    public func answer<Resource: CachedResource>(_ resource: Resource, refresh: Bool = false) async throws -> (value: Resource.Value, source: DataSource) {
        var reader = self
        reader.mode = .script
        reader.startInBackground = nil
        var shown: (Resource.Value, DataSource)?
        _ = try await Run(reader: reader, resource: resource, render: { shown = ($0, $1) }, rerender: { _, _ in false }).run(refresh: refresh)
        guard let shown else { throw resource.unavailable(NetworkError.offlineMode) }
        return shown
    }
}

extension CacheReader {
    /// One read of one resource.
    private struct Run<Resource: CachedResource> {
        let reader: CacheReader
        let resource: Resource
        let render: (Resource.Value, DataSource) throws -> Void
        let rerender: (_ old: Resource.Value, _ new: Resource.Value) throws -> Bool

        var mode: Mode { reader.mode }
        var noun: String { resource.noun }
        var policy: CachePolicy { resource.policy }

        func run(refresh: Bool) async throws -> Outcome {
            if refresh {
                if reader.offline { throw NetworkError.offlineMode }
                try render(try await fetchWithProgress(activity: "fetching \(noun) (--refresh)"), .network)
                return .fetched
            }
            guard let entry = resource.stored() else {
                if reader.offline { throw resource.unavailable(NetworkError.offlineMode) }
                try render(try await fetchWithProgress(activity: "fetching \(noun) (none cached yet)"), .network)
                return .fetched
            }
            let age = entry.savedAt.map { reader.now().timeIntervalSince($0) }
            if entry.standIn, !reader.offline { return try await fetchFirst(entry.value, age: age) }
            let state = entry.outdated ? .stale : policy.state(age: age)
            switch state {
            case .fresh:
                try render(entry.value, .cache(age: age, noun: noun))
                return reader.offline ? .offlineCache : .cached(changed: nil)
            case .freshDue where reader.offline:
                try render(entry.value, .cache(age: age, noun: noun))
                return .offlineCache
            case .stale where reader.offline:
                let source = DataSource.cache(age: age, stale: true, reason: DataSource.offlineReason, noun: noun)
                try render(entry.value, source)
                if let text = source.notice { reader.notice(text) }
                return .offlineCache
            case .freshDue, .stale:
                if let start = reader.startInBackground, let background = resource.backgroundRefresh {
                    return try await behind(entry.value, age: age, stale: state == .stale, start: start, background: background)
                }
                return state == .stale ? try await fetchFirst(entry.value, age: age) : try await revalidate(entry.value, age: age)
            }
        }

        /// What a background refresh can fail with that the person must act on: the next read
        /// asks the server itself instead of showing the copy. (Any other failure is told
        /// beside the copy.)
        static var mustAct: Set<FailureKind> { [.authRequired, .keyring] }

        /// A copy due a refresh or stale, with a background refresh to leave it to: the
        /// copy at once (or the server's answer within ``CacheReader/wait``), the refresh behind.
        private func behind(_ value: Resource.Value, age: TimeInterval?, stale: Bool,
                            start: @Sendable ([String]) throws -> Void, background: BackgroundRefresh) async throws -> Outcome {
            var failure = background.stamp?.lastFailure()
            // A copy saved after the failure (a later refresh worked: `sync --watch`, another
            // command) ends it, whoever refreshed: it is not told again, and is forgotten.
            if let told = failure, let age, told.at <= reader.now().addingTimeInterval(-age) {
                background.stamp?.clearFailure()
                failure = nil
            }
            if let failure, let kind = FailureKind(rawValue: failure.kind), Self.mustAct.contains(kind) {
                // The last background refresh failed with something the person must act on (an
                // expired session, a locked keyring): never hidden behind the copy. This read asks the server
                // itself: its answer (after a sign-in) or its error (exit 4) is the command's.
                let outcome = try await stale ? fetchFirst(value, age: age) : revalidate(value, age: age)
                background.stamp?.clearFailure()
                return outcome
            }
            var cached = DataSource.cache(age: age, stale: stale, noun: noun)
            if reader.wait > .zero {
                if mode == .interactive { try render(value, cached) }
                switch await fetchWithin(reader.wait) {
                case let .answered(live):
                    if mode == .script {
                        try render(live, .network)
                        return .fetched
                    }
                    return .cached(changed: try rerender(value, live))
                case let .failed(error) where !policy.answers(error):
                    throw error
                case let .failed(error):
                    let text = DataSource.wording(stale ? .fallback(age: age, reason: error.summaryText) : .revalidationFailed(reason: error.summaryText), noun: noun)
                    reader.notice(text)
                    if mode == .script {
                        cached.reason = error.summaryText
                        cached.notice = text
                        try render(value, cached)
                    }
                    return stale ? .staleFallback : .cached(changed: nil)
                case .tooSlow:
                    break
                }
            }
            let started = startBehind(start, background)
            cached.refreshing = started
            if stale {
                let text = DataSource.wording(.staleRefreshing(age: age, started: started), noun: noun)
                cached.notice = text
                reader.notice(text)
            }
            if let failure {
                reader.notice(DataSource.wording(.backgroundFailed(ago: reader.now().timeIntervalSince(failure.at), reason: failure.summary, recovery: nil),
                                                 noun: noun))
            }
            if !(mode == .interactive && reader.wait > .zero) { try render(value, cached) }
            return started ? .refreshingInBackground : .cached(changed: nil)
        }

        /// Starts the background refresh unless one was started less than the policy's
        /// interval ago; whether one is (or, within the interval, was just) under way.
        private func startBehind(_ start: @Sendable ([String]) throws -> Void, _ background: BackgroundRefresh) -> Bool {
            switch background.stamp?.claim(at: reader.now(), interval: policy.minimumRefreshInterval) {
            case .recent?: return true // one was started less than the interval ago
            case .unwritable?:
                reader.notice("could not start the background refresh: its stamp cannot be written (\(background.stamp?.url.path ?? "")).")
                return false
            case .claimed?, nil: break
            }
            do {
                try start(background.command)
                return true
            } catch {
                reader.notice("could not start the background refresh: \(error.summaryText)")
                return false
            }
        }

        /// What a fetch given a time limit came to.
        private enum Timed {
            case answered(Resource.Value)
            case failed(any Error)
            case tooSlow
        }

        /// Fetches, giving up (cancelling it) after `limit` on the reader's clock.
        private func fetchWithin(_ limit: Duration) async -> Timed {
            let resource = self.resource, clock = reader.clock, logger = reader.logger
            return await withTaskGroup(of: Timed?.self) { group in
                group.addTask {
                    do { return .answered(try await Self.fetch(resource, logger: logger) { _, _ in }) } catch is CancellationError { return nil } catch { return .failed(error) }
                }
                group.addTask {
                    do { try await clock.sleep(for: limit) } catch { return nil }
                    return .tooSlow
                }
                defer { group.cancelAll() }
                while let next = await group.next() {
                    if let next { return next }
                }
                return .tooSlow
            }
        }

        /// A fresh copy due a refresh, refreshed in the foreground (no background refresh).
        private func revalidate(_ value: Resource.Value, age: TimeInterval?) async throws -> Outcome {
            let cached = DataSource.cache(age: age, noun: noun)
            if mode == .interactive { try render(value, cached) }
            do {
                let live = try await fetchWithProgress(activity: "checking for new \(noun)")
                if mode == .script {
                    try render(live, .network)
                    return .fetched
                }
                return .cached(changed: try rerender(value, live))
            } catch where policy.answers(error) {
                let text = DataSource.wording(.revalidationFailed(reason: error.summaryText), noun: noun)
                reader.notice(text)
                if mode == .script {
                    var shown = cached
                    shown.reason = error.summaryText
                    shown.notice = text
                    try render(value, shown)
                }
                return .cached(changed: nil)
            }
        }

        /// A stale copy, fetched first (no background refresh); the copy answers a failure the policy answers.
        private func fetchFirst(_ value: Resource.Value, age: TimeInterval?) async throws -> Outcome {
            do {
                try render(try await fetchWithProgress(activity: "fetching \(noun) (the cached copy is out of date)"), .network)
                return .fetched
            } catch where policy.answers(error) {
                let source = DataSource.cache(age: age, stale: true, reason: error.summaryText, noun: noun)
                if let text = source.notice { reader.notice(text) }
                try render(value, source)
                return .staleFallback
            }
        }

        /// Fetches with a progress line on stderr in interactive mode only (scripts get none):
        /// what it waits for and for how long so far. The line is erased before anything else
        /// is written (a notice, the output).
        private func fetchWithProgress(activity: String) async throws -> Resource.Value {
            guard mode == .interactive, let io = reader.io else { return try await Self.fetch(resource, logger: reader.logger) { _, _ in } }
            let indicator = Spinner(io: io, message: "\(activity)…", counting: true)
            defer { indicator.stop() }
            return try await Self.fetch(resource, logger: reader.logger) { done, total in indicator.update(done: done, total: total) }
        }

        /// Every fetch of a resource, as one operation line (`albums.refresh`).
        static func fetch(_ resource: Resource, logger: Logger, progress: @escaping FetchProgress) async throws -> Resource.Value {
            try await OperationLog.run(resource.noun.replacingOccurrences(of: " ", with: "-") + ".refresh", logger: logger) {
                try await resource.fetch(progress: progress)
            }
        }
    }
}

extension CacheReader {
    /// ``show(_:with:refresh:)`` with a closure for the presenter (a view that never re-renders).
    /// - Throws: as ``show(_:with:refresh:)``, with what `render` throws as the presenter's errors.
    @discardableResult
    public func show<Resource: CachedResource>(
        _ resource: Resource, refresh: Bool = false, render: @escaping (Resource.Value, DataSource) throws -> Void
    ) async throws -> (outcome: Outcome, shown: Resource.Value) {
        try await show(resource, with: RenderClosure(body: render), refresh: refresh)
    }

    private struct RenderClosure<Value>: CachePresenter {
        let body: (Value, DataSource) throws -> Void
        func render(_ value: Value, source: DataSource) throws { try body(value, source) }
    }
}
