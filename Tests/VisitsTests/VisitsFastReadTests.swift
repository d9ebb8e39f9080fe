@testable import BradOSStorage
import BradOSTerminal
import Foundation
import Testing
@testable import Visits

/// The visits document read by JSONReader (the calendar's and every list's read) against
/// JSONDecoder, which stays the last word: every document either reads the same both ways or
/// is left to JSONDecoder.
@Suite("Visits document: the fast read")
struct VisitsFastReadTests {
    /// Text a person gives: quotes, backslashes, line breaks, tabs, accents, CJK, emoji, a
    /// character past the BMP, the JSON escapes' own characters.
    static let texts = ["Riverside Dental", "Café \"Noir\"", "C:\\path\\to", "line one\nline two\r\nthree\tfour", "東京 神隠し トトロ", "밤편지",
                        "🦷 check-up 👩🏽‍⚕️", "𝄞 clef", "slash / and \u{7F} del", "", " leading and trailing ", "semi; colon, comma"]

    static func document(_ visits: [Visit], extra: String = "") throws -> Data {
        let list = String(decoding: try JSONCoding.encode(visits), as: UTF8.self)
        return Data("""
        {"visits_format_version": \(VisitsCache.formatVersion)\(extra), "cached_visits": \(list), "cached_visits_timestamp": "2026-12-01T10:15:30Z",
         "cached_visits_account": "user-a", "cached_visits_changed_at": "2026-12-01T10:15:31.250Z", "cached_visits_generation": 7}
        """.utf8)
    }

    static func viaDecoder(_ data: Data) -> VisitsCache.Stored? { try? JSONCoding.decode(VisitsCache.Stored.self, from: data) }

    static func same(_ a: VisitsCache.Stored?, _ b: VisitsCache.Stored?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.formatVersion == b.formatVersion && a.visits == b.visits && a.hasVisits == b.hasVisits && a.savedAt == b.savedAt
            && a.account == b.account && a.changedAt == b.changedAt && a.pending.count == b.pending.count
    }

    @Test("a thousand generated visits read exactly as JSONDecoder reads them")
    func generated() throws {
        var generator = SystemRandomNumberGenerator()
        var visits: [Visit] = []
        for index in 0..<1000 {
            let text = { Self.texts.randomElement(using: &generator)! }
            visits.append(Visit(id: "v_\(index)", place: text() + " \(index)", address: Bool.random(using: &generator) ? text() : nil,
                                visitedAt: Date(timeIntervalSince1970: Double(Int.random(in: 1_700_000_000...1_900_000_000, using: &generator))),
                                durationMinutes: Int.random(in: 0...600, using: &generator), notes: Bool.random(using: &generator) ? text() : nil,
                                createdAt: Bool.random(using: &generator) ? Date(timeIntervalSince1970: 1_800_000_000) : nil,
                                pending: index % 97 == 0))
        }
        let data = try Self.document(visits)
        let fast = try #require(VisitsCache.Stored.read(data), "a document brados writes is the fast reader's")
        #expect(Self.same(fast, Self.viaDecoder(data)))
        #expect(fast.visits == visits)
    }

    @Test("escapes JSONEncoder never writes read as JSONDecoder reads them")
    func escapes() throws {
        let visit = #"{"id": "v1", "place": "A\u00e9\/\b\f\ud83e\uddb7 \u6771", "address": null, "visitedAt": "2026-12-01T08:00:00+01:00", "durationMinutes": -0, "notes": "x", "unknown": {"a": [1, 2.5e3, true, null, "s"]}, "pending": false}"#
        let data = Data(#"{"cached_visits": [\#(visit)], "cached_visits_timestamp": "2026-12-01T10:15:30Z"}"#.utf8)
        let fast = try #require(VisitsCache.Stored.read(data))
        #expect(Self.same(fast, Self.viaDecoder(data)))
        #expect(fast.visits?.first?.place == "Aé/\u{8}\u{C}🦷 東")
    }

    @Test("whatever the fast reader does not take is left to JSONDecoder, and the cache reads as before")
    func refusals() throws {
        let good = #"{"id": "v1", "place": "A", "visitedAt": "2026-12-01T08:00:00Z", "durationMinutes": 30}"#
        let cases: [String] = [
            #"{"cached_visits": [\#(good)], "cached_visits": []}"#,                       // a key given twice
            #"{"cached_visits": [{"id": "v1", "id": "v2", "place": "A", "visitedAt": "2026-12-01T08:00:00Z", "durationMinutes": 30}]}"#,
            #"{"cached_visits": [{"id": "bad id!", "place": "A", "visitedAt": "2026-12-01T08:00:00Z", "durationMinutes": 30}]}"#,
            #"{"cached_visits": [{"id": "v1", "place": "A", "visitedAt": "yesterday", "durationMinutes": 30}]}"#,
            #"{"cached_visits": [{"id": "v1", "place": "A", "visitedAt": "2026-12-01T08:00:00Z", "durationMinutes": 30.0}]}"#,
            #"{"cached_visits": [{"id": "v1", "place": 7, "visitedAt": "2026-12-01T08:00:00Z", "durationMinutes": 30}]}"#,
            #"{"cached_visits": [{"id": "v1", "place": "\ud800", "visitedAt": "2026-12-01T08:00:00Z", "durationMinutes": 30}]}"#,
            #"{"cached_visits": [\#(good)], "visits_pending_adds": [{"x": 1}]}"#,         // a queue: JSONDecoder's
            #"{"cached_visits": [\#(good)], "cached_visits_timestamp": 5}"#,
            #"{"cached_visits": [\#(good)],}"#, #"{"cached_visits": [\#(good)]} x"#, #"{"cached_visits": [\#(good)]"#, "[]", "", "nul",
        ]
        for text in cases {
            let data = Data(text.utf8)
            #expect(VisitsCache.Stored.read(data) == nil, "refused: \(text)")
            // The snapshot's read falls back to JSONDecoder: the same as JSONDecoder alone.
            let snapshot = KeyValueSnapshot(source: data)
            #expect(Self.same(snapshot.decode(VisitsCache.Stored.self, reading: VisitsCache.Stored.read), Self.viaDecoder(data)), "\(text)")
        }
        // A hostile file nested far deeper than any document: refused, never a crash, and the
        // cache still reads as JSONDecoder reads it (an error: no visits).
        let deep = Data((#"{"cached_visits": [\#(good)], "x": "# + String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000) + "}").utf8)
        #expect(VisitsCache.Stored.read(deep) == nil)
        #expect(Self.same(KeyValueSnapshot(source: deep).decode(VisitsCache.Stored.self, reading: VisitsCache.Stored.read), Self.viaDecoder(deep)))
        let nested = Data((#"{"cached_visits": [\#(good)], "x": "# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}").utf8)
        #expect(VisitsCache.Stored.read(nested)?.visits?.count == 1, "within the depth, an unknown value is skipped")
        // Invalid UTF-8 in a string: refused by the fast reader, JSONDecoder decides.
        let bytes = Array(#"{"cached_visits": [{"id": "v1", "place": "A"#.utf8) + [0xFF] + Array(#"", "visitedAt": "2026-12-01T08:00:00Z", "durationMinutes": 30}]}"#.utf8)
        #expect(VisitsCache.Stored.read(Data(bytes)) == nil)
    }
}
