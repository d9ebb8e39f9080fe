@testable import BradOSTerminal
import Foundation
import TestSupport
import Testing

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

    @Test("a table wider than the terminal is fitted: the widest columns cut with an ellipsis, ids whole, optional columns dropped first")
    func tableFitsWidth() {
        let notes = "Six-month check-up; no cavities, next cleaning booked for May"
        let table = Table(headers: ["ID", "WHEN", "PLACE", "DURATION", "NOTES"],
                          rows: [["v_seed000", "2026-11-27 08:00", "Riverside Dental Practice", "30 min", notes]], rightAligned: [3], keepWhole: [0, 1, 3])
        let lines = table.render(width: 80).split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { TextWidth.of($0) <= 80 }, "\(lines)")
        #expect(lines[1].hasPrefix("v_seed000  2026-11-27 08:00  "))
        #expect(lines[1].contains("30 min"))
        #expect(lines[1].hasSuffix("…"))
        // Unfitted (a pipe): every cell whole.
        #expect(table.render().contains(notes))

        let config = Table(headers: ["KEY", "VALUE", "SOURCE", "ENV", "MEANING"],
                           rows: [["library.min-refresh-interval", "30s", "default", "BRADOS_LIBRARY_MIN_REFRESH_INTERVAL",
                                   "Least time between two background refreshes of the snapshot (scripts)"]],
                           keepWhole: [0, 1], dropFirst: [3, 2], wrapLast: true)
        let fitted = config.render(width: 80)
        #expect(!fitted.contains("BRADOS_LIBRARY"), "the environment column goes first")
        #expect(fitted.contains("library.min-refresh-interval"))
        #expect(fitted.split(separator: "\n").allSatisfy { TextWidth.of(String($0)) <= 80 }, "\(fitted)")
        // The meaning wraps under its own column, every word kept.
        let words = fitted.split(separator: "\n").dropFirst().flatMap { $0.split(separator: " ") }
        #expect(words.joined(separator: " ").hasSuffix("default Least time between two background refreshes of the snapshot (scripts)"))
        // Wide enough: nothing dropped or cut.
        #expect(config.render(width: 300) == config.render())
    }

    @Test("a line of prose wider than the terminal wraps at spaces under its own text; words (paths) are never cut; on a pipe nothing wraps")
    func softWrap() {
        let line = "ok    credentials: store file; keyring: no keyring answered on the session bus (Cannot autolaunch D-Bus)"
        let wrapped = TextWidth.softWrap(line, width: 60).split(separator: "\n").map(String.init)
        #expect(wrapped.count == 2 && wrapped.allSatisfy { TextWidth.of($0) <= 60 }, "\(wrapped)")
        #expect(wrapped[0].hasPrefix("ok    credentials:") && wrapped[1].hasPrefix("      ") && !wrapped[1].hasPrefix("       "), "\(wrapped)")
        let path = "artwork  /tmp/a/very/long/path/that/does/not/fit/in/forty/columns/at/all.jpg"
        #expect(TextWidth.softWrap(path, width: 40) == path, "one word past the width: left to the terminal, never cut")
        #expect(TextWidth.softWrap(path + " and more words after it", width: 40).split(separator: "\n").dropFirst().first?.hasPrefix("         and") == true)
        #expect(TextWidth.softWrap("short", width: 40) == "short")
        let styled = Output.styled("ok  ", .green, colors: true) + "  name: " + String(repeating: "word ", count: 20)
        let lines = TextWidth.softWrap(styled, width: 40).split(separator: "\n").map(String.init)
        #expect(lines.count > 1 && lines.dropFirst().allSatisfy { $0.hasPrefix("      ") }, "styles take no column: \(lines)")
        let piped = CapturingIO(environment: [:], terminal: false)
        Output(io: piped, format: .human).line(line)
        #expect(piped.stdout == line + "\n")
    }

    @Test("text width: wide characters count two, combining marks none; cutting keeps brados's styles whole and closes them")
    func textWidth() {
        #expect(TextWidth.of("abc") == 3)
        #expect(TextWidth.of("日本語") == 6)
        #expect(TextWidth.of("e\u{301}") == 1)
        #expect(TextWidth.of("🏃") == 2)
        let styled = Output.styled("Blue Electric", .bold, colors: true)
        #expect(TextWidth.of(styled) == 13)
        let cut = TextWidth.truncate(styled, to: 6)
        #expect(SafeText.rendered(cut, keepLines: false) == "\u{1B}[1mBlue …\u{1B}[0m")
        #expect(TextWidth.truncate("日本語テキスト", to: 5) == "日本…")
        #expect(TextWidth.wrap("one two three four", width: 9) == ["one two", "three", "four"])
        #expect(TextWidth.wrap("abcdefghijkl", width: 5) == ["abcde", "fghij", "kl"])
        #expect(TextWidth.wrap("a\n\nb", width: 5) == ["a", "", "b"])
        #expect(TextWidth.wrap("日本", width: 1) == ["日", "本"], "a character wider than the line still moves on")
    }

    @Test("wrapping keeps what a line that fits has (runs of spaces, an indented block) and indents a long list item's later lines as far as it")
    func wrapKeepsShape() {
        #expect(TextWidth.wrap("    let x  = 1\nname   value", width: 40) == ["    let x  = 1", "name   value"])
        #expect(TextWidth.wrap("  - one two three four five", width: 14) == ["  - one two", "  three four", "  five"])
        #expect(TextWidth.wrap("a  b  c  d", width: 4) == ["a  b", "c  d"], "spaces inside a line stay, at a break they go")
        // The first word of a sentence is no lead-in: later lines go under the line's start.
        let sentence = "Wrapped text of a sentence that runs on and on past the width of the terminal"
        let lines = TextWidth.softWrap(sentence, width: 40).split(separator: "\n").map(String.init)
        #expect(lines.count > 1 && !lines[1].hasPrefix(" "), "\(lines)")
    }

    @Test("--at takes a date, a local time, or a time with its offset after the minutes or the seconds")
    func dateInput() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let instant = try #require(DateInput.parse("2026-11-28T14:30:00Z", timeZone: berlin))
        #expect(instant.timeIntervalSince1970 == 1_795_876_200)
        #expect(DateInput.parse("2026-11-28T14:30Z", timeZone: berlin) == instant)
        #expect(DateInput.parse("2026-11-28T16:30+02:00", timeZone: utc) == instant)
        #expect(DateInput.parse("2026-11-28T09:30-0500", timeZone: utc) == instant)
        #expect(DateInput.parse("2026-11-28T16:30+02", timeZone: utc) == instant)
        #expect(DateInput.parse("2026-11-28 15:30", timeZone: berlin) == instant, "without an offset: local time")
        #expect(DateInput.parse("2026-11-28T14:30:00.5Z", timeZone: berlin) == instant.addingTimeInterval(0.5))
        for bad in ["2026-11-28T14:30+2", "2026-11-28T14:30+99:00", "2026-11-28T14:30+02:0x", "2026-02-31", "tomorrow"] {
            #expect(DateInput.parse(bad, timeZone: utc) == nil, "\(bad)")
        }
    }

    @Test("times keep their milliseconds exactly: what is read as .123 is written as .123; the format is ISO 8601's, UTC")
    func millisecondsKept() throws {
        for text in ["2026-11-27T18:30:00.123Z", "2026-11-27T18:30:00.121Z", "2026-11-27T18:30:00.999Z", "2026-11-27T18:30:00.001Z",
                     "1969-12-31T23:59:59.999Z", "2000-02-29T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z"] {
            let date = try #require(JSONCoding.parseTimestamp(text))
            #expect(JSONCoding.string(from: date) == text)
            // (--at reads dates through the calendar, Gregorian only from 1582: recent times here.)
            if text.hasPrefix("20") { #expect(JSONCoding.string(from: try #require(DateInput.parse(text))) == text, "--at \(text)") }
        }
        // The same text as Foundation's ISO 8601 format for whole milliseconds, from 1970 to 2140.
        var generator = SystemRandomNumberGenerator()
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: 0...5_364_662_400_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            #expect(JSONCoding.string(from: date) == style.format(Date(timeIntervalSince1970: (Double(milliseconds) + 0.25) / 1000)), "\(milliseconds)")
        }
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
