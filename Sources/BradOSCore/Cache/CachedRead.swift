import Foundation

/// The one mechanism that carries out a ``CachePolicy`` for every domain's reads: given what
/// is stored, it renders the stored copy, fetches, or both, and says where the shown data came
/// from (``DataSource``).
///
/// - No copy: fetched; offline → ``unavailable`` (the needs-network error by default).
/// - A fresh copy: rendered; when the policy makes it due a refresh, refreshed the way
///   ``CachePolicy/Revalidation`` says (re-rendered only if it changed).
/// - A stale copy: fetched first; on a failure the policy answers (and offline), the copy is
///   rendered with one notice of its age and the command succeeds.
/// - `refresh`: the network only.
public struct CachedRead<Value: Sendable> {
    /// Interactive: a terminal and human output. Script: `--json` or a pipe (one document, no progress).
    public enum Mode: Sendable, Equatable { case interactive, script }

    /// A stored copy and when it was saved (`nil`: unknown).
    public struct Entry: Sendable {
        public var value: Value
        public var savedAt: Date?
        public init(_ value: Value, savedAt: Date?) {
            self.value = value
            self.savedAt = savedAt
        }
    }

    /// What happened (for tests and logs).
    public enum Outcome: Sendable, Equatable {
        /// A fresh copy was rendered; a refresh then found changes (true), none (false), or
        /// could not run or was not due (nil).
        case cached(changed: Bool?)
        case refreshingInBackground
        case fetched
        case staleFallback
        case offlineCache
    }

    /// Reports progress of a fetch: items done and total (when known).
    public typealias Progress = @Sendable (_ done: Int, _ total: Int?) -> Void

    public var policy: CachePolicy
    public var mode: Mode
    public var offline: Bool
    /// What is shown, plural, for notices and progress: "visits", "albums".
    public var noun: String
    /// Where progress goes (interactive mode); `nil`: no progress.
    public var io: (any TerminalIO)?
    public var now: @Sendable () -> Date
    /// Fetches the live value (and stores it).
    public var fetch: @Sendable (_ progress: @escaping Progress) async throws -> Value
    /// Renders a value and where it came from.
    public var render: (Value, DataSource) throws -> Void
    /// After a refresh of a rendered copy: re-renders if `new` differs from `old`; returns whether it did.
    public var rerenderIfChanged: (_ old: Value, _ new: Value) throws -> Bool
    /// One-line notices on stderr.
    public var notice: (String) -> Void
    /// Starts the background refresh of ``CachePolicy/Revalidation/behind`` in script mode; `nil`: none.
    public var startBackgroundRefresh: (() throws -> Void)?
    /// When the domain last started one: at most one per ``CachePolicy/minimumRefreshInterval``
    /// (`nil`: no limit).
    public var refreshStamp: RefreshStamp?
    /// The error when there is no copy and the network is off (given the offline error).
    public var unavailable: (any Error) -> any Error

    public init(policy: CachePolicy, mode: Mode, offline: Bool, noun: String, io: (any TerminalIO)? = nil,
                now: @escaping @Sendable () -> Date,
                fetch: @escaping @Sendable (@escaping Progress) async throws -> Value,
                render: @escaping (Value, DataSource) throws -> Void,
                rerenderIfChanged: @escaping (Value, Value) throws -> Bool = { _, _ in false },
                notice: @escaping (String) -> Void,
                startBackgroundRefresh: (() throws -> Void)? = nil, refreshStamp: RefreshStamp? = nil,
                unavailable: @escaping (any Error) -> any Error = { $0 }) {
        self.policy = policy
        self.mode = mode
        self.offline = offline
        self.noun = noun
        self.io = io
        self.now = now
        self.fetch = fetch
        self.render = render
        self.rerenderIfChanged = rerenderIfChanged
        self.notice = notice
        self.startBackgroundRefresh = startBackgroundRefresh
        self.refreshStamp = refreshStamp
        self.unavailable = unavailable
    }

    /// Carries out the policy for what is stored (`nil`: nothing).
    /// - Parameter refresh: skip the stored copy and fetch (`--refresh`).
    /// - Throws: the fetch's errors the policy does not answer (or any, when nothing is stored).
    @discardableResult
    public func run(_ entry: Entry?, refresh: Bool = false) async throws -> Outcome {
        if refresh {
            if offline { throw NetworkError.offlineMode }
            try render(try await fetchWithProgress(), .network)
            return .fetched
        }
        guard let entry else {
            if offline { throw unavailable(NetworkError.offlineMode) }
            try render(try await fetchWithProgress(), .network)
            return .fetched
        }
        let age = entry.savedAt.map { now().timeIntervalSince($0) }
        switch policy.state(age: age) {
        case .fresh:
            try render(entry.value, .cache(age: age, noun: noun))
            return offline ? .offlineCache : .cached(changed: nil)
        case .freshDue where offline:
            try render(entry.value, .cache(age: age, noun: noun))
            return .offlineCache
        case .freshDue:
            return try await revalidate(entry.value, age: age)
        case .stale:
            if offline {
                let source = DataSource.cache(age: age, stale: true, reason: DataSource.offlineReason, noun: noun)
                try render(entry.value, source)
                if let text = source.notice { notice(text) }
                return .offlineCache
            }
            do {
                try render(try await fetchWithProgress(), .network)
                return .fetched
            } catch where policy.answers(error) {
                let source = DataSource.cache(age: age, stale: true, reason: error.summaryText, noun: noun)
                if let text = source.notice { notice(text) }
                try render(entry.value, source)
                return .staleFallback
            }
        }
    }

    /// A fresh copy due a refresh, online.
    private func revalidate(_ value: Value, age: TimeInterval?) async throws -> Outcome {
        let cached = DataSource.cache(age: age, noun: noun)
        if mode == .script, policy.revalidation == .behind {
            try render(value, cached)
            guard let startBackgroundRefresh else { return .cached(changed: nil) }
            if let refreshStamp, !refreshStamp.claim(at: now(), interval: policy.minimumRefreshInterval) {
                return .cached(changed: nil) // one was started less than the interval ago
            }
            do { try startBackgroundRefresh() } catch { notice("could not start the background refresh: \(error.summaryText)") }
            return .refreshingInBackground
        }
        if mode == .interactive { try render(value, cached) }
        do {
            let live = try await fetchWithProgress(activity: "checking for new \(noun)")
            if mode == .script {
                try render(live, .network)
                return .fetched
            }
            return .cached(changed: try rerenderIfChanged(value, live))
        } catch where policy.answers(error) {
            let text = DataSource.wording(.revalidationFailed(reason: error.summaryText), noun: noun)
            notice(text)
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
    private func fetchWithProgress(activity: String? = nil) async throws -> Value {
        guard mode == .interactive, let io else { return try await fetch { _, _ in } }
        let indicator = Spinner(io: io, message: "\(activity ?? "fetching \(noun)")…")
        defer { indicator.stop() }
        return try await fetch { done, total in indicator.update(done: done, total: total) }
    }
}

extension CachedRead {
    /// Carries out `policy` for a store that returns its answer instead of rendering it (one
    /// value, script mode: no early presentation, no background refresh).
    /// - Returns: the value to show and where it came from.
    /// - Throws: as ``run(_:refresh:)``.
    public static func answer(policy: CachePolicy, offline: Bool, noun: String, now: @escaping @Sendable () -> Date,
                              cached: Entry?, refresh: Bool = false, notice: @escaping (String) -> Void = { _ in },
                              unavailable: @escaping (any Error) -> any Error = { $0 },
                              fetch: @escaping @Sendable () async throws -> Value) async throws -> (value: Value, source: DataSource) {
        var shown: (Value, DataSource)?
        let read = CachedRead(policy: policy, mode: .script, offline: offline, noun: noun, now: now,
                              fetch: { _ in try await fetch() }, render: { shown = ($0, $1) }, notice: notice, unavailable: unavailable)
        try await read.run(cached, refresh: refresh)
        // Every path of `run` renders once or throws.
        guard let shown else { throw unavailable(NetworkError.offlineMode) }
        return shown
    }
}
