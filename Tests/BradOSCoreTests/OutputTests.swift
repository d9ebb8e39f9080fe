import Foundation
@testable import BradOSCore
import Testing
import TestSupport

@Suite("Output")
struct OutputTests {
    @Test("a notice erases a spinner's frame first, and only when one is drawn")
    func noticeAfterSpinner() {
        let io = CapturingIO(environment: [:], terminal: true)
        let line = StatusLine()
        line.draw("⠋ fetching conversations…", to: io)
        line.writeLine("brados: showing cached conversations\n", to: io)
        line.writeLine("brados: a second notice\n", to: io)
        line.erase(io)
        #expect(io.stderr == "\r⠋ fetching conversations…\u{1B}[K\r\u{1B}[Kbrados: showing cached conversations\nbrados: a second notice\n")
    }

    @Test("tables align columns and numbers right")
    func table() {
        let text = Table(headers: ["A", "N"], rows: [["long", "5"], ["x", "123"]], rightAligned: [1]).render()
        #expect(text == "A       N\nlong    5\nx     123\n")
    }

    @Test("a streamed JSON document is the document json() prints, whatever the batches", arguments: [0, 1, 2, 7])
    func jsonStream(count: Int) throws {
        struct Item: Codable, Equatable { var name: String; var tags: [String]; var note: String? }
        struct Document: Encodable { var items: [Item]; var section: String; var total: Int; var source: [String: Bool] }
        let items = (0..<count).map { Item(name: "item \($0) \u{202E}", tags: ["a", "b\n"], note: $0 % 2 == 0 ? nil : "x") }
        for batch in [1, 2, 5] {
            let whole = CapturingIO(environment: [:]), streamed = CapturingIO(environment: [:])
            try Output(io: whole, format: .json).json(Document(items: items, section: "1", total: count, source: ["live": true]))
            try Output(io: streamed, format: .json).jsonStream(arrayKey: "items", of: Item.self,
                                                                fields: ["section": "1", "total": count, "source": ["live": true]]) { emit in
                for start in stride(from: 0, to: items.count, by: batch) { try emit(Array(items[start..<min(start + batch, items.count)])) }
            }
            let decoded = try JSONSerialization.jsonObject(with: Data(streamed.stdout.utf8)) as? [String: Any]
            #expect((decoded?["items"] as? [Any])?.count == count)
            #expect(streamed.stdout == whole.stdout, "batches of \(batch)")
        }
    }

    @Test("a streamed table pads to the widths given and never cuts a wider cell")
    func tableStream() {
        let io = CapturingIO(environment: [:])
        let table = Output(io: io, format: .human).tableStream(headers: ["KEY", "TITLE", "N"], widths: [2, 5, 1], rightAligned: [2])
        table.rows([["1", "Blue", "5"], ["12345", "Longer than five", "10"]])
        #expect(io.stdout == "KEY  TITLE  N\n1    Blue   5\n12345  Longer than five  10\n")
    }

    @Test("colors only on a terminal without NO_COLOR; CLICOLOR_FORCE forces them")
    func colors() {
        #expect(Output(io: CapturingIO(environment: [:], terminal: true), format: .human).colors)
        #expect(!Output(io: CapturingIO(environment: [:], terminal: false), format: .human).colors)
        #expect(!Output(io: CapturingIO(environment: ["NO_COLOR": "1"], terminal: true), format: .human).colors)
        #expect(!Output(io: CapturingIO(environment: ["CLICOLOR": "0"], terminal: true), format: .human).colors)
        #expect(Output(io: CapturingIO(environment: ["CLICOLOR_FORCE": "1"], terminal: false), format: .human).colors)
    }

    @Test("sizes and ages read naturally")
    func formats() {
        #expect(Format.bytes(512) == "512 B")
        #expect(Format.bytes(1_500) == "1.5 KB")
        #expect(Format.bytes(250_000_000) == "250 MB")
        #expect(Format.age(30) == "30 s")
        #expect(Format.age(300) == "5 min")
        #expect(Format.age(7200) == "2 h")
    }
}
