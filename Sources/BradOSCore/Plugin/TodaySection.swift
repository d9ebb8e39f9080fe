import BradOSStorage
import BradOSTerminal
import Foundation

/// A domain's part of `brados today` (``DomainPlugin/todaySection(_:)``).
public struct TodaySection: Sendable {
    /// The heading, e.g. `Meals`.
    public var title: String
    /// What to show, a line each (styled through ``TodayContext/output``); empty when nothing
    /// is cached (then ``fill`` says how to get it).
    public var lines: [String]
    /// The domain's object in `--json` (what ``lines`` say, as data).
    public var json: [String: JSONValue]
    /// When nothing is cached: the command that fills the cache, e.g. `brados mealplan show`.
    public var fill: String?
    /// Changes made offline, waiting to be sent: on screen `weight 81.5 kg, queued 2 h ago`,
    /// in `--json` each as an object (``UnsentChange``: id, summary, createdAt, send).
    public var queued: [UnsentChange]
    /// Set when the cached copy is past its freshness (`brados today --refresh` refreshes it):
    /// how old it is.
    public var staleAge: TimeInterval?

    public init(title: String, lines: [String], json: [String: JSONValue], queued: [UnsentChange] = [], staleAge: TimeInterval? = nil) {
        self.title = title
        self.lines = lines
        self.json = json
        self.queued = queued
        self.staleAge = staleAge
    }

    /// A domain with nothing cached: one dim line naming `fill`.
    public static func nothingCached(_ title: String, fill: String, queued: [UnsentChange] = []) -> TodaySection {
        var section = TodaySection(title: title, lines: [], json: [:], queued: queued)
        section.fill = fill
        return section
    }
}

/// What a domain's ``DomainPlugin/todaySection(_:)`` reads with: the environment, the time,
/// and the one rule for reading a cache for the screen (``read(_:)``).
public struct TodayContext: Sendable {
    public let env: AppEnvironment
    /// `--refresh`: what is stale or missing is fetched first (with progress).
    public let refresh: Bool
    public let now: Date
    public let calendar: Calendar
    /// Whether text pictures (a sparkline) are drawn: as `--art`, `display.art`, `BRADOS_ART`,
    /// a pipe and the accessible mode decide for every picture; otherwise their text line.
    public let drawsPictures: Bool

    public init(env: AppEnvironment, refresh: Bool, now: Date, timeZone: TimeZone = .local, drawsPictures: Bool = false) {
        self.env = env
        self.refresh = refresh
        self.now = now
        self.drawsPictures = drawsPictures
        calendar = env.output.forms.calendar(timeZone: timeZone)
    }

    public var output: Output { env.output }

    /// One cached value, as the screen shows it.
    public struct Read<Value: Sendable>: Sendable {
        public var value: Value
        public var savedAt: Date?
        /// Past the resource's freshness: its age.
        public var staleAge: TimeInterval?
        /// A `--refresh` that failed (the cached copy is shown instead).
        public var refreshFailure: String?
    }

    /// Reads `resource` from its cache, never the network; with ``refresh``, a copy that is
    /// missing or stale is fetched first through the domain's policy (the usual progress on a
    /// terminal), and a failed fetch leaves the cached copy on the screen.
    /// - Returns: `nil` when nothing is cached (and nothing could be fetched).
    public func read<Resource: CachedResource>(_ resource: Resource) async -> Read<Resource.Value>? {
        var stored = resource.stored()
        var failure: String?
        if refresh, !env.isOffline, stale(stored, policy: resource.policy) != nil || stored == nil {
            let capture = Capture<Resource.Value>()
            do {
                try await env.reader.show(resource, with: capture, refresh: true)
                if let value = capture.box.value { stored = CachedEntry(value, savedAt: now) }
            } catch {
                failure = error.summaryText
            }
        }
        guard let stored else { return nil }
        return Read(value: stored.value, savedAt: stored.savedAt, staleAge: stale(stored, policy: resource.policy), refreshFailure: failure)
    }

    private func stale<Value>(_ entry: CachedEntry<Value>?, policy: CachePolicy) -> TimeInterval? {
        guard let entry else { return nil }
        let age = entry.savedAt.map { now.timeIntervalSince($0) }
        return policy.state(age: age) == .stale ? (age ?? 0) : nil
    }

    /// Where the presenter leaves the value: written and read on the one task that runs
    /// ``read(_:)`` (the reader calls the presenter before it returns), hence unchecked.
    private final class Box<Value>: @unchecked Sendable { var value: Value? }
    private struct Capture<Value>: CachePresenter {
        let box = Box<Value>()
        func render(_ value: Value, source: DataSource) throws { box.value = value }
        func rerender(old: Value, new: Value) throws -> Bool {
            box.value = new
            return true
        }
    }
}
