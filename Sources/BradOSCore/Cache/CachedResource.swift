import Foundation

/// What a domain reads through the cache, declared once: its stored copy, how to fetch it,
/// its freshness rules. ``CacheReader`` does the rest, the same way for every domain
/// (offline, the stale notice, background revalidation, progress, interactive or script).
///
/// A domain's read command is then a few lines (its ``EnvironmentCommand/run(in:)``):
///
///     let visits = try VisitsRepository.live(env).list
///     try await env.reader.show(visits, with: VisitsRenderer(output: env.output, now: env.now), refresh: refresh)
///
/// Threading: a resource is a value; ``fetch(progress:)`` may run on any task.
public protocol CachedResource<Value>: Sendable {
    associatedtype Value: Sendable

    /// What is shown, for notices and progress: "visits", "albums", or one thing: "plan" (the
    /// notices say "them" or "it" by whether it ends in "s").
    var noun: String { get }

    /// The freshness rules (a domain's ``CachePolicy``, with its configured TTL).
    var policy: CachePolicy { get }

    /// The stored copy and when it was saved; `nil`: nothing stored, or nothing readable (a
    /// corrupt copy counts as none; whether it is removed at once or left for the next fetch
    /// to replace is the domain's cache's rule).
    func stored() -> CachedEntry<Value>?

    /// Fetches the live value and stores it.
    /// - Parameter progress: items done and the total when known (a progress bar on a terminal).
    /// - Throws: the domain's network, auth and domain errors; the stored copy is untouched then.
    func fetch(progress: @escaping FetchProgress) async throws -> Value

    /// The hidden command that refreshes this resource in a detached process, for
    /// ``CachePolicy/Revalidation/behind`` in scripts; `nil` (the default): none.
    var backgroundRefresh: BackgroundRefresh? { get }

    /// The error to show when nothing is stored and the network failed or is off (given that
    /// failure); by default the failure itself.
    func unavailable(_ failure: any Error) -> any Error
}

extension CachedResource {
    public var backgroundRefresh: BackgroundRefresh? { nil }
    public func unavailable(_ failure: any Error) -> any Error { failure }
}

/// Reports progress of a fetch: items done and the total, when known.
public typealias FetchProgress = @Sendable (_ done: Int, _ total: Int?) -> Void

/// A stored copy and when it was saved (`nil`: unknown, which counts as stale under a TTL).
public struct CachedEntry<Value: Sendable>: Sendable {
    public var value: Value
    public var savedAt: Date?
    /// Not a copy of what is asked for but a stand-in for it (an album's line in the
    /// snapshot for its details): shown only when the network cannot answer (offline, or a
    /// failure the policy answers); online, the value is fetched.
    public var standIn: Bool
    /// Marked out of date since it was saved (a change the service accepted that it does not
    /// follow yet): stale whatever its age, which stays its real one.
    public var outdated: Bool

    public init(_ value: Value, savedAt: Date?, standIn: Bool = false, outdated: Bool = false) {
        self.value = value
        self.savedAt = savedAt
        self.standIn = standIn
        self.outdated = outdated
    }
}

/// How a script's background refresh is started: the hidden command (without the global
/// options, which ``AppEnvironment/startInBackground(_:)`` adds) and the stamp that limits it
/// to one per ``CachePolicy/minimumRefreshInterval``.
public struct BackgroundRefresh: Sendable, Equatable {
    /// The command and its own arguments: `["library", "revalidate", "--section", "2"]`.
    public var command: [String]
    /// When the domain last started one (`nil`: no limit).
    public var stamp: RefreshStamp?

    public init(command: [String], stamp: RefreshStamp?) {
        self.command = command
        self.stamp = stamp
    }
}
