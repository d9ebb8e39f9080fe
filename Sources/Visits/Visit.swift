import BradOSCore
import BradOSNetworking
import BradOSTerminal
import Foundation

/// One visit (a place, when, how long, notes), as the BradOS API returns it.
public struct Visit: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var place: String
    public var address: String?
    public var visitedAt: Date
    public var durationMinutes: Int
    public var notes: String?
    public var createdAt: Date?
    /// Recorded here and not on the server yet (`visits add` offline): its id is a local one
    /// (`local-…`) until a refresh sends it. Written in JSON only when true.
    public var pending: Bool

    public init(id: String, place: String, address: String? = nil, visitedAt: Date, durationMinutes: Int,
                notes: String? = nil, createdAt: Date? = nil, pending: Bool = false) {
        self.pending = pending
        self.id = id
        self.place = place
        self.address = address
        self.visitedAt = visitedAt
        self.durationMinutes = durationMinutes
        self.notes = notes
        self.createdAt = createdAt
    }

    /// The characters a visit id may hold (see ``IdentifierRule``).
    public static let idRule = IdentifierRule.token("visit id")

    enum CodingKeys: String, CodingKey { case id, place, address, visitedAt, durationMinutes, notes, createdAt, pending }

    /// Decodes a visit, refusing an id outside ``idRule`` (from a server, a cache or an archive).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Self.idRule, forKey: .id)
        place = try container.decode(String.self, forKey: .place)
        address = try container.decodeIfPresent(String.self, forKey: .address)
        visitedAt = try container.decode(Date.self, forKey: .visitedAt)
        durationMinutes = try container.decode(Int.self, forKey: .durationMinutes)
        notes = try container.decodeIfPresent(String.self, forKey: .notes)
        createdAt = try container.decodeIfPresent(Date.self, forKey: .createdAt)
        pending = try container.decodeIfPresent(Bool.self, forKey: .pending) ?? false
    }

    /// A visit as ``init(from:)`` decodes it, from ``JSONReader``: throws ``JSONReader/Unreadable``
    /// at anything ``init(from:)`` might decide otherwise (a missing key, a wrong type, an id
    /// outside ``idRule``, a date it cannot read), so that JSONDecoder has the last word.
    static func read(_ reader: inout JSONReader) throws -> Visit {
        var id: String?, place: String?, address: String?, visitedAt: Date?, duration: Int?, notes: String?, createdAt: Date?
        var pending = false
        func date(_ reader: inout JSONReader) throws -> Date {
            guard let date = JSONCoding.date(from: try reader.string()) else { throw JSONReader.Unreadable() }
            return date
        }
        var seen = JSONReader.Duplicates()
        try reader.object { reader, key in
            switch key {
            case "id": try seen.insert(0); id = try reader.string()
            case "place": try seen.insert(1); place = try reader.string()
            case "address": try seen.insert(2); address = try reader.isNull() ? nil : reader.string()
            case "visitedAt": try seen.insert(3); visitedAt = try date(&reader)
            case "durationMinutes": try seen.insert(4); duration = try reader.int()
            case "notes": try seen.insert(5); notes = try reader.isNull() ? nil : reader.string()
            case "createdAt": try seen.insert(6); createdAt = try reader.isNull() ? nil : date(&reader)
            case "pending": try seen.insert(7); pending = try reader.isNull() ? false : reader.bool()
            default: try reader.skip()
            }
        }
        guard let id, idRule.isValid(id), let place, let visitedAt, let duration else { throw JSONReader.Unreadable() }
        return Visit(id: id, place: place, address: address, visitedAt: visitedAt, durationMinutes: duration, notes: notes,
                     createdAt: createdAt, pending: pending)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(place, forKey: .place)
        // A key with no value is there, null (contract/json/visits-list.schema.json).
        try container.encode(address, forKey: .address)
        try container.encode(visitedAt, forKey: .visitedAt)
        try container.encode(durationMinutes, forKey: .durationMinutes)
        try container.encode(notes, forKey: .notes)
        try container.encode(createdAt, forKey: .createdAt)
        if pending { try container.encode(true, forKey: .pending) }
    }

    /// Whether `created` (a visit the server has) is what `visit` asked for: how a send whose
    /// answer was lost is settled by the list.
    public func matches(_ visit: NewVisit) -> Bool {
        place == visit.place && abs(visitedAt.timeIntervalSince(visit.visitedAt)) < 1 && durationMinutes == visit.durationMinutes
            && (notes ?? "") == (visit.notes ?? "") && (address ?? "") == (visit.address ?? "")
    }
}

/// A new visit for `POST /api/visits`.
public struct NewVisit: Codable, Sendable, Equatable {
    public var place: String
    public var address: String?
    public var visitedAt: Date
    public var durationMinutes: Int
    public var notes: String?

    public init(place: String, address: String?, visitedAt: Date, durationMinutes: Int, notes: String?) {
        self.place = place
        self.address = address
        self.visitedAt = visitedAt
        self.durationMinutes = durationMinutes
        self.notes = notes
    }
}

/// What changed between two versions of the visit list.
public struct VisitChanges: Sendable, Equatable, Codable {
    public var added: Int
    public var removed: Int
    public var updated: Int

    public init(from old: [Visit], to new: [Visit]) {
        let before = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        added = after.keys.filter { before[$0] == nil }.count
        removed = before.keys.filter { after[$0] == nil }.count
        updated = after.filter { id, visit in before[id].map { $0 != visit } ?? false }.count
    }

    public var isEmpty: Bool { added == 0 && removed == 0 && updated == 0 }

    /// "2 new visits, 1 removed".
    public var summary: String {
        var parts: [String] = []
        if added > 0 { parts.append("\(added) new visit\(added == 1 ? "" : "s")") }
        if removed > 0 { parts.append("\(removed) removed") }
        if updated > 0 { parts.append("\(updated) updated") }
        return parts.isEmpty ? "no changes" : parts.joined(separator: ", ")
    }
}
