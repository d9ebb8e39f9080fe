import Foundation

/// The one "render what is cached, then refresh" mechanism every domain uses
/// (stale-while-revalidate, made natural for a terminal):
///
/// - Fresh cache: rendered at once. Interactive (a TTY, human output): then refreshed while the
///   command waits, with progress on stderr, and re-rendered only if something changed.
///   Scripts (`--json`, pipes): exactly one document; the refresh runs in a detached
///   background process so the script never waits on the server.
/// - Stale cache: fetched first; on a network failure or a server error, the stale value is
///   rendered with a one-line notice of its age (stale-if-error), and the command succeeds.
/// - No cache: fetched; offline → the needs-network error.
/// - Offline: the cache at any age, never the network. `refresh`: the network only.
public struct CachedThenRefresh<Value: Sendable> {
    public enum Mode: Sendable { case interactive, script }

    /// What is cached, as of now.
    public enum Cached: Sendable {
        case fresh(Value, age: TimeInterval)
        case stale(Value, age: TimeInterval)
        case missing
    }

    /// Where a rendered value came from.
    public enum Source: Sendable, Equatable {
        case cache(age: TimeInterval, stale: Bool)
        case network
    }

    /// What happened (for tests and logs).
    public enum Outcome: Sendable, Equatable {
        /// The cache was rendered; an interactive refresh then found changes (true), none
        /// (false), or could not run (nil).
        case cached(changed: Bool?)
        case refreshingInBackground
        case fetched
        case staleFallback
        case offlineCache
    }

    /// Reports progress of a fetch: items done and total (when known).
    public typealias Progress = @Sendable (_ done: Int, _ total: Int?) -> Void

    public var mode: Mode
    public var offline: Bool
    public var io: any TerminalIO
    /// What is shown, plural, for notices: "visits", "albums".
    public var noun: String
    /// Fetches the live value (and caches it).
    public var fetch: @Sendable (_ progress: @escaping Progress) async throws -> Value
    /// Renders a value.
    public var render: (Value, Source) throws -> Void
    /// After an interactive refresh: re-renders if `new` differs from `old`; returns whether it did.
    public var rerenderIfChanged: (_ old: Value, _ new: Value) throws -> Bool
    /// One-line notices on stderr.
    public var notice: (String) -> Void
    /// Starts the background refresh of script mode; `nil` when the domain has none.
    public var startBackgroundRefresh: (() throws -> Void)?

    public init(mode: Mode, offline: Bool, io: any TerminalIO, noun: String,
                fetch: @escaping @Sendable (@escaping Progress) async throws -> Value,
                render: @escaping (Value, Source) throws -> Void,
                rerenderIfChanged: @escaping (Value, Value) throws -> Bool,
                notice: @escaping (String) -> Void,
                startBackgroundRefresh: (() throws -> Void)?) {
        self.mode = mode
        self.offline = offline
        self.io = io
        self.noun = noun
        self.fetch = fetch
        self.render = render
        self.rerenderIfChanged = rerenderIfChanged
        self.notice = notice
        self.startBackgroundRefresh = startBackgroundRefresh
    }

    @discardableResult
    public func run(_ cached: Cached, refresh: Bool = false) async throws -> Outcome {
        if refresh {
            if offline { throw NetworkError.offlineMode }
            try render(try await fetchWithProgress(), .network)
            return .fetched
        }
        switch cached {
        case let .fresh(value, age):
            try render(value, .cache(age: age, stale: false))
            if offline { return .offlineCache }
            switch mode {
            case .script:
                do { try startBackgroundRefresh?() } catch { notice("could not start the background refresh: \(error)") }
                return .refreshingInBackground
            case .interactive:
                do {
                    let live = try await fetchWithProgress(activity: "checking for new \(noun)")
                    return .cached(changed: try rerenderIfChanged(value, live))
                } catch let error as any BradOSError where Self.fallsBack(error) {
                    notice("could not check for new \(noun): \(error.summary)")
                    return .cached(changed: nil)
                }
            }
        case let .stale(value, age):
            if offline {
                try render(value, .cache(age: age, stale: true))
                notice("offline: showing cached \(noun) from \(Format.ago(age)).")
                return .offlineCache
            }
            do {
                try render(try await fetchWithProgress(), .network)
                return .fetched
            } catch let error as any BradOSError where Self.fallsBack(error) {
                notice("showing cached \(noun) from \(Format.ago(age)): \(error.summary)")
                try render(value, .cache(age: age, stale: true))
                return .staleFallback
            }
        case .missing:
            if offline { throw NetworkError.offlineMode }
            try render(try await fetchWithProgress(), .network)
            return .fetched
        }
    }

    /// Network failures, server errors and rate limiting (429, once its retries are spent)
    /// fall back to the cache; auth and other 4xx do not.
    public static func fallsBack(_ error: any BradOSError) -> Bool {
        error.kind == .offline || error.kind == .server || error.kind == .rateLimited
    }

    /// Fetches with a progress line on stderr in interactive mode only (scripts get none).
    private func fetchWithProgress(activity: String? = nil) async throws -> Value {
        guard mode == .interactive else { return try await fetch { _, _ in } }
        let indicator = Spinner(io: io, message: "\(activity ?? "fetching \(noun)")…")
        defer { indicator.stop() }
        return try await fetch { done, total in indicator.update(done: done, total: total) }
    }
}
