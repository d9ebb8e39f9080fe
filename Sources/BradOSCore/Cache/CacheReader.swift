import Foundation

/// The one mechanism that carries out a ``CachePolicy`` for every domain's reads: given a
/// ``CachedResource``, it shows the stored copy, fetches, or both, and says where the shown
/// data came from (``DataSource``). Commands get theirs from ``AppEnvironment/reader``.
///
/// - No copy: fetched; offline → the resource's ``CachedResource/unavailable(_:)`` error.
/// - A fresh copy: shown; when the policy makes it due a refresh, refreshed the way
///   ``CachePolicy/Revalidation`` says (shown again only if it changed).
/// - A stale copy: fetched first; on a failure the policy answers (and offline), the copy is
///   shown with one notice of its age and the command succeeds.
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
    /// Starts a resource's ``BackgroundRefresh`` command detached; `nil`: background refreshes are off.
    public var startInBackground: (@Sendable ([String]) throws -> Void)?

    public init(mode: Mode, offline: Bool, io: (any TerminalIO)? = nil, now: @escaping @Sendable () -> Date,
                notice: @escaping @Sendable (String) -> Void = { _ in },
                startInBackground: (@Sendable ([String]) throws -> Void)? = nil) {
        self.mode = mode
        self.offline = offline
        self.io = io
        self.now = now
        self.notice = notice
        self.startInBackground = startInBackground
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
                try render(try await fetchWithProgress(), .network)
                return .fetched
            }
            guard let entry = resource.stored() else {
                if reader.offline { throw resource.unavailable(NetworkError.offlineMode) }
                try render(try await fetchWithProgress(), .network)
                return .fetched
            }
            let age = entry.savedAt.map { reader.now().timeIntervalSince($0) }
            switch policy.state(age: age) {
            case .fresh:
                try render(entry.value, .cache(age: age, noun: noun))
                return reader.offline ? .offlineCache : .cached(changed: nil)
            case .freshDue where reader.offline:
                try render(entry.value, .cache(age: age, noun: noun))
                return .offlineCache
            case .freshDue:
                return try await revalidate(entry.value, age: age)
            case .stale:
                if reader.offline {
                    let source = DataSource.cache(age: age, stale: true, reason: DataSource.offlineReason, noun: noun)
                    try render(entry.value, source)
                    if let text = source.notice { reader.notice(text) }
                    return .offlineCache
                }
                do {
                    try render(try await fetchWithProgress(), .network)
                    return .fetched
                } catch where policy.answers(error) {
                    let source = DataSource.cache(age: age, stale: true, reason: error.summaryText, noun: noun)
                    if let text = source.notice { reader.notice(text) }
                    try render(entry.value, source)
                    return .staleFallback
                }
            }
        }

        /// A fresh copy due a refresh, online.
        private func revalidate(_ value: Resource.Value, age: TimeInterval?) async throws -> Outcome {
            let cached = DataSource.cache(age: age, noun: noun)
            if mode == .script, policy.revalidation == .behind {
                try render(value, cached)
                guard let start = reader.startInBackground, let refresh = resource.backgroundRefresh else { return .cached(changed: nil) }
                if let stamp = refresh.stamp, !stamp.claim(at: reader.now(), interval: policy.minimumRefreshInterval) {
                    return .cached(changed: nil) // one was started less than the interval ago
                }
                do { try start(refresh.command) } catch {
                    reader.notice("could not start the background refresh: \(error.summaryText)")
                }
                return .refreshingInBackground
            }
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

        /// Fetches with a progress line on stderr in interactive mode only (scripts get none).
        /// The line is erased before anything else is written (a notice, the output).
        private func fetchWithProgress(activity: String? = nil) async throws -> Resource.Value {
            guard mode == .interactive, let io = reader.io else { return try await resource.fetch { _, _ in } }
            let indicator = Spinner(io: io, message: "\(activity ?? "fetching \(noun)")…")
            defer { indicator.stop() }
            return try await resource.fetch { done, total in indicator.update(done: done, total: total) }
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
