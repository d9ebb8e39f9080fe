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
