import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// `brados today`'s content: every domain's section, in the registry's order.
public struct TodayScreen: Sendable {
    public struct Entry: Sendable {
        public var domain: String
        public var section: TodaySection?
        /// The domain's cache could not be read.
        public var failure: String?
    }

    public var entries: [Entry]

    /// Asks each plugin for its section; a failing domain is shown as such, the others still are.
    public static func gather(_ plugins: [any DomainPlugin], context: TodayContext) async -> TodayScreen {
        var entries: [Entry] = []
        for plugin in plugins.compactMap(\.asShowsToday) {
            do {
                if let section = try await plugin.todaySection(context) { entries.append(Entry(domain: plugin.name, section: section)) }
            } catch {
                entries.append(Entry(domain: plugin.name, section: nil, failure: error.summaryText))
            }
        }
        return TodayScreen(entries: entries)
    }

    /// The `--json` document: one object keyed by domain.
    public var json: JSONValue {
        var object: [String: JSONValue] = [:]
        for entry in entries {
            var domain: [String: JSONValue] = entry.section?.json ?? [:]
            if let section = entry.section {
                domain["cached"] = .bool(section.fill == nil)
                domain["fill"] = section.fill.map(JSONValue.string) ?? .null
                domain["queued"] = .array(section.queued.map { change in
                    .object(["id": .string(change.id), "summary": .string(change.summary), "createdAt": .string(JSONCoding.string(from: change.createdAt)),
                             "send": .string(change.send)])
                })
                domain["stale"] = section.staleAge.map { .number($0.rounded()) } ?? .null
            }
            if let failure = entry.failure {
                domain["cached"] = .bool(false)
                domain["error"] = .string(failure)
            }
            object[entry.domain] = .object(domain)
        }
        return .object(object)
    }
}

/// Prints ``TodayScreen``.
public struct TodayRenderer: Sendable {
    let output: Output
    let now: Date

    public init(output: Output, now: Date) {
        self.output = output
        self.now = now
    }

    /// - Throws: ``StorageError`` when the JSON cannot be encoded.
    public func render(_ screen: TodayScreen) throws {
        if output.format == .json { return try output.json(screen.json) }
        output.line(output.styled("Today, " + Self.heading(now), .bold))
        var queued: [String] = []
        var stale: [String] = []
        for entry in screen.entries {
            output.line()
            guard let section = entry.section else {
                output.line(output.styled(entry.domain, .bold))
                output.line("  " + output.styled("could not read the cache: \(entry.failure ?? "unknown")", .yellow))
                continue
            }
            if let fill = section.fill {
                output.line(output.styled(section.title, .bold) + "  " + output.styled("nothing cached · \(fill)", .dim))
            } else {
                output.line(output.styled(section.title, .bold))
                for line in section.lines { output.line("  " + line) }
            }
            queued += section.queued.map { "\(entry.domain): \($0.summary), queued \(Format.ago(now.timeIntervalSince($0.createdAt)))" }
            if let age = section.staleAge { stale.append("\(entry.domain) (\(Format.ago(age)))") }
        }
        if !queued.isEmpty {
            output.line()
            output.line(output.styled("Waiting to be sent", .bold))
            for item in queued { output.line("  " + item) }
        }
        if !stale.isEmpty {
            output.line()
            output.line(output.styled("Stale: " + stale.joinedDirectly(separator: ", ") + " · brados today --refresh", .dim))
        }
    }

    /// `Wednesday 2026-11-25` (English day names, ISO date: no locale tables at start-up).
    static func heading(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .local
        let names = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        return names[(calendar.component(.weekday, from: date) + 6) % 7] + " " + Format.day(date)
    }
}
