import ArgumentParser
import BradOSCalendar
import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// `brados calendar`: the domains' events as one iCalendar file, from the caches.
public struct CalendarCommand: EnvironmentCommand {
    public static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "calendar",
        abstract: "Write the meal plan's meals and the visits as an iCalendar (.ics) file, from the caches.",
        discussion: Composition.current.helpText("calendar") { discussion(Composition.current.plugins) }) }

    static func discussion(_ plugins: [any DomainPlugin]) -> String {
        var lines: [String] = []
        let adding = plugins.compactMap(\.asAddsToCalendar)
        if !adding.isEmpty {
            lines.append("What each domain puts in the calendar:")
            lines += HelpExamples.columns(adding.map { ($0.name, $0.calendarDescription) })
        }
        lines += [
            "Reads the caches only (it works --offline) and says on stderr how old each domain's copy is; `brados sync` fills them.",
            "By default: from 4 weeks back (calendar.past) through 14 days from today. --from and --to take \(DateInput.shapes); --to is not included.",
            "Each item keeps its UID on every export (a meal by its day and type, a visit by its id), and a changed one gets the next SEQUENCE, so a calendar updates the event instead of adding a second.",
            "Visits are at their time (UTC); meals at their hour wherever you are (floating), or in calendar.timezone when set. Days are the machine's zone's, never a shell's TZ, so every writer writes the same file. Meals of days past stay as they were exported: a new plan changes today and later.",
            "To subscribe: set calendar.file, and `brados sync`, `sync --watch` and every command that changes a meal plan or visit keep that file current, written whole, only when it changed; it is one profile's. docs/calendar.md says how GNOME Calendar, Evolution, Thunderbird and khal read it.",
            "--json prints the events and each domain's age instead of the .ics (with -o, the .ics still goes to the file).",
            "Examples:",
            "  brados calendar -o ~/meals-and-visits.ics",
            "  brados calendar --domains mealplan --from 2026-11-30 --to 2026-12-07",
            "  brados config set calendar.file ~/.local/share/brados/brados.ics",
        ]
        return lines.joined(separator: "\n")
    }

    @Option(help: ArgumentHelp("Only these domains (comma-separated).", valueName: "a,b"),
            completion: .custom { _, _, _ in Composition.current.plugins.compactMap(\.asAddsToCalendar).map(\.name) })
    var domains: String?
    @Option(help: ArgumentHelp("The first day or time to include (default: 4 weeks back, calendar.past).", valueName: "date")) var from: String?
    @Option(help: ArgumentHelp("The day or time to stop before (default: 14 days from today).", valueName: "date")) var to: String?
    @Option(name: .shortAndLong, help: ArgumentHelp("Write the .ics to this file, atomically (default: stdout).", valueName: "file"),
            completion: .file(extensions: ["ics"])) var output: String?
    @OptionGroup public var global: GlobalOptions
    public init() {}

    /// `--from`..<`--to`, each defaulting as the help says.
    /// - Throws: ``CalendarError``.
    func range(_ defaults: Range<Date>, calendar: Calendar) throws -> Range<Date> {
        func date(_ option: String, _ value: String?, _ fallback: Date) throws -> Date {
            guard let value else { return fallback }
            guard let date = DateInput.parse(value, timeZone: calendar.timeZone) else {
                throw CalendarError.invalidDate(option: option, value: value, expected: DateInput.shapes)
            }
            return date
        }
        let start = try date("--from", from, defaults.lowerBound), end = try date("--to", to, defaults.upperBound)
        guard end > start else { throw CalendarError.emptyRange(from: from ?? "(4 weeks back)", to: to ?? "(14 days from today)") }
        return start..<end
    }

    /// Gathers the events and writes them.
    /// - Throws: ``CalendarError``, ``StorageError`` writing `-o`, the first domain's error reading its cache (after writing the others').
    public func run(in env: AppEnvironment) async throws {
        let names = domains.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let range = try range(try CalendarExport.defaultRange(env), calendar: try CalendarZone.of(env.settings).calendar)
        // --json needs the events; the .ics alone may be the one kept from the last export.
        let export = env.output.format == .json ? try CalendarExport.gather(env, domains: names, during: range)
            : try CalendarExport.document(env, domains: names, during: range)
        if let output {
            let url = URL(fileURLWithPath: output, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            try AtomicFile.write(Data(export.document.utf8), to: url.standardizedFileURL, mode: 0o600, createParents: false)
        } else if env.output.format != .json {
            env.io.write(export.document)
        }
        if env.output.format == .json {
            try env.output.json(Self.json(export, zone: try CalendarZone.of(env.settings)))
        }
        env.output.notice((output.map { "wrote \($0): " } ?? "calendar: ") + export.summary(now: env.now()))
        if let failure = export.firstFailure { throw failure }
    }

    static func json(_ export: CalendarExport, zone: CalendarZone) -> JSONValue {
        /// A local time as ISO 8601 without an offset: `2026-12-01T08:00:00`.
        func local(_ date: Date) -> JSONValue {
            .string(String(JSONCoding.string(from: date.addingTimeInterval(TimeInterval(zone.days.secondsFromGMT(for: date)))).prefix(19)))
        }
        var domains: [String: JSONValue] = [:]
        for part in export.parts {
            domains[part.domain] = .object([
                "events": .number(Double(part.events)),
                "savedAt": part.savedAt.map { .string(JSONCoding.string(from: $0)) } ?? .null,
                "fill": part.fill.map(JSONValue.string) ?? .null,
                "error": part.failure.map { .string($0.summaryText) } ?? .null,
            ])
        }
        let events: [JSONValue] = export.events.map { event in
            .object(["uid": .string(event.uid), "start": .string(JSONCoding.string(from: event.start)), "end": .string(JSONCoding.string(from: event.end)),
                     "summary": .string(event.summary), "description": event.description.map(JSONValue.string) ?? .null,
                     "location": event.location.map(JSONValue.string) ?? .null, "sequence": .number(Double(event.sequence)),
                     "local": event.timeOfDay ? .object(["start": local(event.start), "end": local(event.end),
                                                         "timeZone": zone.written.map { .string($0.identifier) } ?? .null]) : .null,
                     "lastModified": .string(JSONCoding.string(from: event.changedAt))])
        }
        return .object(["domains": .object(domains), "events": .array(events)])
    }
}
