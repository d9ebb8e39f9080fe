import BradOSCore
import BradOSTerminal
import Foundation

/// Human and JSON output of visits.
public struct VisitsRenderer: CachePresenter, Sendable {
    public typealias Value = [Visit]
    let output: Output
    let now: @Sendable () -> Date

    public init(output: Output, now: @escaping @Sendable () -> Date) {
        self.output = output
        self.now = now
    }

    struct ListDocument: Encodable {
        var source: DataSource
        var visits: [Visit]
    }

    /// Prints the list: one JSON document, or a headline and a table.
    public func render(_ visits: [Visit], source: DataSource) throws {
        if output.format == .json { return try output.json(ListDocument(source: source, visits: visits)) }
        output.line(output.styled("\(visits.count) visit\(visits.count == 1 ? "" : "s")", .bold) + " · " + output.styled(source.origin, .dim))
        table(visits)
    }

    /// After an interactive revalidation: what changed and the new list, when anything did.
    public func rerender(old: [Visit], new: [Visit]) throws -> Bool {
        let changes = VisitChanges(from: old, to: new)
        if changes.isEmpty { return false }
        rerender(new, changes: changes)
        return true
    }

    /// What changed, then the new list.
    func rerender(_ visits: [Visit], changes: VisitChanges) {
        output.line()
        output.line(output.styled("↻ \(changes.summary)", .cyan) + " · " + output.styled("updated from the network", .dim))
        table(visits)
    }

    func table(_ visits: [Visit]) {
        guard !visits.isEmpty else { return output.line("No visits yet. Add one with `brados visits add --place NAME`.") }
        let zone = TimeZone.local
        output.table(Table(
            headers: ["ID", "WHEN", "PLACE", "DURATION", "NOTES"],
            rows: visits.map { [$0.id, output.forms.minute($0.visitedAt, timeZone: zone), $0.place + ($0.pending ? " " + output.styled("(not sent yet)", .yellow) : ""),
                                "\($0.durationMinutes) min", Format.firstLine($0.notes ?? "", 48)] },
            rightAligned: [3], keepWhole: [0, 1, 3]))
    }

    /// One visit in detail.
    public func render(_ visit: Visit, source: DataSource) throws {
        if output.format == .json {
            struct Document: Encodable { var source: DataSource; var visit: Visit }
            return try output.json(Document(source: source, visit: visit))
        }
        var rows = [["id", visit.id], ["place", visit.place]]
        if let address = visit.address { rows.append(["address", address]) }
        rows.append(["when", when(visit.visitedAt)])
        rows.append(["duration", "\(visit.durationMinutes) min"])
        if let notes = visit.notes, !notes.isEmpty { rows.append(["notes", notes]) }
        if visit.pending { rows.append(["status", "recorded here, not sent yet: the next refresh or `brados sync` sends it"]) }
        rows.append(["source", source.origin])
        output.table(Table(headers: [], rows: rows, wrapLast: true))
    }

    /// `2026-11-21 14:30` in the local time zone.
    /// `2026-11-21 14:30` (`2:30 pm` with `display.clock 12h`).
    func when(_ date: Date) -> String { output.forms.minute(date) }

}
