@testable import BradOSTerminal
import Foundation
import Logging
import Testing
import TestSupport

/// A user unit's stderr is the journal: each line then says its priority, as journald reads it.
@Suite("Output to the journal")
struct JournalTests {
    /// stderr the journal, or not.
    final class JournalIO: TerminalIO, Sendable {
        let base = CapturingIO(environment: [:])
        func write(_ text: String) { base.write(text) }
        func writeError(_ text: String) { base.writeError(text) }
        var isOutputTerminal: Bool { false }
        var isErrorTerminal: Bool { false }
        func readInput() -> Data { Data() }
        var environment: [String: String] { [:] }
        var isErrorJournal: Bool { true }
    }

    @Test("JOURNAL_STREAM names the stream by device and inode: stderr is the journal only when it is that stream")
    func detection() throws {
        let folder = TemporaryDirectory("journal")
        let descriptor = open(folder.path("stream").path, O_CREAT | O_RDWR, 0o600)
        defer { close(descriptor) }
        var info = stat()
        #expect(fstat(descriptor, &info) == 0)
        #expect(StandardIO.isJournal("\(info.st_dev):\(info.st_ino)", descriptor: descriptor))
        #expect(!StandardIO.isJournal("\(info.st_dev):\(info.st_ino + 1)", descriptor: descriptor), "another stream (a redirect in the unit's shell)")
        #expect(!StandardIO.isJournal(nil, descriptor: descriptor))
    }

    @Test("in the journal a notice is one line at priority notice, a log line at its level's; elsewhere neither has a prefix")
    func priorities() {
        let journal = JournalIO()
        Output(io: journal, format: .human).notice("sync --watch: 127.0.0.1:8080 answers again.\nsecond line")
        #expect(journal.base.stderr == "<5>brados: sync --watch: 127.0.0.1:8080 answers again. second line\n")
        var logger = Logger(label: "brados") { _ in TerminalLogHandler(io: journal, level: .debug) }
        logger.logLevel = .debug
        logger.warning("careful")
        logger.info("visits.sync ok")
        #expect(journal.base.stderr.hasSuffix("<4>brados: warning: careful\n<6>brados: info: visits.sync ok\n"), "\(journal.base.stderr)")
        let terminal = CapturingIO(environment: [:])
        Output(io: terminal, format: .human).notice("plain")
        #expect(terminal.stderr == "brados: plain\n")
    }
}
