import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The process's streams, injected so library code never touches the real terminal
/// in tests. All output goes through here: no bare `print` in library code.
public protocol TerminalIO: Sendable {
    /// Writes to standard output.
    func write(_ text: String)
    /// Writes to standard error.
    func writeError(_ text: String)
    /// Whether standard output is a terminal.
    var isOutputTerminal: Bool { get }
    /// Whether standard error is a terminal (spinners and progress only then).
    var isErrorTerminal: Bool { get }
    /// Reads all of standard input.
    func readInput() -> Data
    /// The environment variables.
    var environment: [String: String] { get }
    /// The terminal's size when stdout is one (rows, columns).
    var terminalSize: (rows: Int, columns: Int)? { get }
    /// Whether standard input is a terminal (a person can answer a question).
    var isInputTerminal: Bool { get }
    /// Reads one line from standard input (without its newline); `nil` at end of input.
    func readLine() -> String?
    /// Asks for a secret on the controlling terminal (`/dev/tty`), without echo, as `age`
    /// and `ssh` do (standard input may carry the archive); `nil` when there is no terminal.
    func readSecret(prompt: String) -> String?
    /// Writes `request` to the controlling terminal and reads its answer until `complete`
    /// says it is whole or `timeout` passes (what came is returned, `nil` when nothing did).
    /// Used to ask which pictures the terminal shows; `nil` when there is no terminal.
    func queryTerminal(_ request: String, until complete: @Sendable (String) -> Bool, timeout: Duration) -> String?
    /// One character cell's size in pixels, when the terminal reports it.
    var cellPixels: (width: Int, height: Int)? { get }
    /// Sends the rest of stdout through the user's pager when it is a terminal (``Pager``);
    /// nothing for any other stream.
    /// - Returns: whether stdout will go through a pager.
    @discardableResult func pageOutput() -> Bool
    /// Whether standard error is systemd's journal (a user unit's): each line then starts with
    /// its priority (`<4>`), as journald reads it, and carries no time (journald keeps one).
    var isErrorJournal: Bool { get }
    /// Whether spinners and progress bars may be drawn (and redrawn) on standard error: only
    /// on a terminal that can move its cursor (not `TERM=dumb`), and never with
    /// `display.progress off` or the accessible mode (``FilteredIO``).
    var drawsProgress: Bool { get }
    /// Standard error's width when it is a terminal (notices wrap at it).
    var errorColumns: Int? { get }
    /// Writes bytes as they are to standard output (an image for `-o -`).
    func write(bytes: Data)
    /// The first write to standard output or standard error that failed (a full disk, an I/O
    /// error; not a reader gone away): the command then ends with it (``OutputError``), as
    /// coreutils do, never with a success it cannot know.
    var writeFailure: OutputError? { get }
}

extension TerminalIO {
    public var terminalSize: (rows: Int, columns: Int)? { nil }
    public var isInputTerminal: Bool { false }
    public func readLine() -> String? { nil }
    public func readSecret(prompt: String) -> String? { nil }
    public func queryTerminal(_ request: String, until complete: @Sendable (String) -> Bool, timeout: Duration) -> String? { nil }
    public var cellPixels: (width: Int, height: Int)? { nil }
    @discardableResult public func pageOutput() -> Bool { false }
    public var isErrorJournal: Bool { false }
    public var drawsProgress: Bool { isErrorTerminal && environment["TERM"] != "dumb" }
    public var errorColumns: Int? { nil }
    public func write(bytes: Data) { write(String(decoding: bytes, as: UTF8.self)) }
    public var writeFailure: OutputError? { nil }

    /// Asks a yes/no question on stderr and reads the answer; anything but y/yes is no.
    public func confirm(_ question: String) -> Bool {
        writeError("\(SafeText.visible(question)) [y/N] ")
        guard let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return answer == "y" || answer == "yes"
    }
}

/// Another stream with less on standard error, everything else its own: `--quiet` (nothing
/// on stderr: notices, progress, logs; errors are reported by the command runner on its own
/// stream, so they still print), and `display.progress off` or the accessible mode (nothing
/// drawn and redrawn there: a screen reader reads every frame of a spinner).
public struct FilteredIO: TerminalIO {
    let base: any TerminalIO
    let quiet: Bool
    let progress: Bool
    public init(_ base: any TerminalIO, quiet: Bool = false, progress: Bool = true) {
        self.base = base
        self.quiet = quiet
        self.progress = progress
    }
    public func write(_ text: String) { base.write(text) }
    public func write(bytes: Data) { base.write(bytes: bytes) }
    public func writeError(_ text: String) { if !quiet { base.writeError(text) } }
    public var isOutputTerminal: Bool { base.isOutputTerminal }
    public var isErrorTerminal: Bool { !quiet && base.isErrorTerminal }
    public func readInput() -> Data { base.readInput() }
    public var environment: [String: String] { base.environment }
    public var terminalSize: (rows: Int, columns: Int)? { base.terminalSize }
    public var isInputTerminal: Bool { base.isInputTerminal }
    public func readLine() -> String? { base.readLine() }
    public func readSecret(prompt: String) -> String? { base.readSecret(prompt: prompt) }
    public func queryTerminal(_ request: String, until complete: @Sendable (String) -> Bool, timeout: Duration) -> String? {
        base.queryTerminal(request, until: complete, timeout: timeout)
    }
    public var cellPixels: (width: Int, height: Int)? { base.cellPixels }
    @discardableResult public func pageOutput() -> Bool { base.pageOutput() }
    public var isErrorJournal: Bool { base.isErrorJournal }
    public var drawsProgress: Bool { progress && !quiet && base.drawsProgress }
    public var errorColumns: Int? { base.errorColumns }
    public var writeFailure: OutputError? { base.writeFailure }
}

/// Standard error in stdout's place: what a command reports when its stdout carries data
/// (`brados cache export -o -`: the archive), so nothing is mixed into that data.
public struct StandardErrorIO: TerminalIO {
    let base: any TerminalIO
    public init(_ base: any TerminalIO) { self.base = base }
    public func write(_ text: String) { base.writeError(text) }
    public func writeError(_ text: String) { base.writeError(text) }
    public var writeFailure: OutputError? { base.writeFailure }
    public var isOutputTerminal: Bool { base.isErrorTerminal }
    public var isErrorTerminal: Bool { base.isErrorTerminal }
    public func readInput() -> Data { base.readInput() }
    public var environment: [String: String] { base.environment }
    public var isInputTerminal: Bool { base.isInputTerminal }
    public func readLine() -> String? { base.readLine() }
    public func readSecret(prompt: String) -> String? { base.readSecret(prompt: prompt) }
    public var isErrorJournal: Bool { base.isErrorJournal }
}

/// The real process streams.
public struct StandardIO: TerminalIO {
    public init() {}

    public func write(_ text: String) {
        Pager.beforeWrite()
        Self.writeAll(STDOUT_FILENO, Array(text.utf8))
    }
    public func write(bytes: Data) {
        Pager.beforeWrite()
        Self.writeAll(STDOUT_FILENO, Array(bytes))
    }
    public func writeError(_ text: String) { Self.writeAll(STDERR_FILENO, Array(text.utf8)) }
    public var writeFailure: OutputError? {
        Self.failures.withLock { failures in
            for fd in [STDOUT_FILENO, STDERR_FILENO] {
                if let code = failures[fd], code != 0 { return OutputError.writeFailed(stream: fd == STDOUT_FILENO ? .output : .error, errno: code) }
            }
            return nil
        }
    }

    /// The first failed write of each stream (descriptor: its errno, 0 for a reader of stderr
    /// gone away, which is no failure); a stream that failed is written no more.
    private static let failures = Mutex<[Int32: Int32]>([:])
    /// True too while stdout goes through the pager to the terminal (``Pager``).
    public var isOutputTerminal: Bool { Pager.isPaging || isatty(STDOUT_FILENO) == 1 }
    @discardableResult public func pageOutput() -> Bool { Pager.arm(environment: environment) }
    public var isErrorTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    public func readInput() -> Data { FileHandle.standardInput.readDataToEndOfFile() }
    public var isInputTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    public func readLine() -> String? { Swift.readLine(strippingNewline: true) }
    public var environment: [String: String] { Self.processEnvironment() }
    public var isErrorJournal: Bool { Self.errorIsJournal }

    /// The process's environment now, read from `environ` byte by byte: the first of a name
    /// given twice, as getenv finds it; an entry without `=` is left out. ProcessInfo's makes
    /// each entry a String and splits it by Characters (about 370,000 instructions a call,
    /// and a start asked four times).
    public static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let length = strlen(pointer)
            pointer.withMemoryRebound(to: UInt8.self, capacity: length) { start in
                let bytes = UnsafeBufferPointer(start: start, count: length)
                guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")), equals > 0 else { return }
                let name = String(decoding: bytes[..<equals], as: UTF8.self)
                if result[name] == nil { result[name] = String(decoding: bytes[(equals + 1)...], as: UTF8.self) }
            }
            entry += 1
        }
        return result
    }

    /// `JOURNAL_STREAM` names the device and inode of the stream systemd connected to the
    /// journal; standard error is the journal when it is that stream (a shell started from
    /// the unit that redirects it is not). Looked at once.
    static let errorIsJournal = isJournal(getenv("JOURNAL_STREAM").map { String(cString: $0) }, descriptor: STDERR_FILENO)

    /// Whether `descriptor` is the stream `JOURNAL_STREAM` (`device:inode`) names.
    static func isJournal(_ stream: String?, descriptor: Int32) -> Bool {
        guard let stream else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return stream == "\(info.st_dev):\(info.st_ino)"
    }

    public func readSecret(prompt: String) -> String? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var saved = termios()
        let canHide = tcgetattr(tty, &saved) == 0
        if canHide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            TerminalRestore.remember(saved)
            tcsetattr(tty, TCSAFLUSH, &quiet)
        }
        defer { if canHide { tcsetattr(tty, TCSAFLUSH, &saved); TerminalRestore.forget() } }
        Self.writeAll(tty, Array(prompt.utf8))
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(tty, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == 0x0A { break }
            line.append(byte)
        }
        if line.last == 0x0D { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }
    public func queryTerminal(_ request: String, until complete: @Sendable (String) -> Bool, timeout: Duration) -> String? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        // Only the terminal's foreground job asks: a background one (`brados … &`) would be
        // stopped by SIGTTOU/SIGTTIN, and its question would mix with the foreground's input.
        guard tcgetpgrp(tty) == getpgrp() else { return nil }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { return nil }
        // Raw for the answer: no echo of it, no waiting for a newline.
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON)
        TerminalRestore.remember(saved)
        tcsetattr(tty, TCSANOW, &raw)
        // TCSAFLUSH drops what came after the answer was read or the wait ended (an answer
        // later than the timeout), so it never reaches the shell's prompt as typed text.
        defer { tcsetattr(tty, TCSAFLUSH, &saved); TerminalRestore.forget() }
        Self.writeAll(tty, Array(request.utf8))
        var answer: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            var poller = pollfd(fd: tty, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, left.milliseconds)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = Glibc.read(tty, &buffer, buffer.count)
            guard count > 0 else { break }
            answer += buffer[..<count]
            if complete(String(decoding: answer, as: UTF8.self)) { break }
        }
        return answer.isEmpty ? nil : String(decoding: answer, as: UTF8.self)
    }

    public var cellPixels: (width: Int, height: Int)? {
        var size = winsize()
        // Standard output's window, else the controlling terminal's (`brados doctor | tail`
        // asks about the terminal it runs in).
        var known = ioctl(Pager.terminal ?? STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0
        if !known {
            let tty = open("/dev/tty", O_RDONLY | O_CLOEXEC | O_NOCTTY)
            if tty >= 0 {
                known = ioctl(tty, UInt(TIOCGWINSZ), &size) == 0
                close(tty)
            }
        }
        guard known, size.ws_row > 0, size.ws_col > 0, size.ws_xpixel > 0, size.ws_ypixel > 0 else { return nil }
        return (Int(size.ws_xpixel) / Int(size.ws_col), Int(size.ws_ypixel) / Int(size.ws_row))
    }

    public var terminalSize: (rows: Int, columns: Int)? {
        var size = winsize()
        guard ioctl(Pager.terminal ?? STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    public var errorColumns: Int? {
        var size = winsize()
        guard isatty(STDERR_FILENO) == 1, ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// A standard stream the process was started without (`brados … >&-`) gets a descriptor
    /// that takes no write (/dev/null, read-only), before anything else is opened: otherwise the
    /// next file opened (a database) would be descriptor 1 and take the output. Writes to it
    /// then fail (EBADF), and the command says so (``writeFailure``).
    public static func holdClosedStreams() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) < 0 && errno == EBADF {
            let held = open("/dev/null", O_RDONLY)
            if held >= 0, held != fd { dup2(held, fd); close(held) }
        }
    }

    /// Ends the process as Unix tools do when the reader of stdout is gone: by SIGPIPE,
    /// quietly (the shell sees 141), whether or not the networking code ignores the signal.
    public static func endForGoneReader() -> Never {
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        exit(128 + SIGPIPE)
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        if failures.withLock({ $0[fd] }) != nil { return }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                // The reader is gone (`brados coach show ID | head -1`): end as Unix tools do,
                // by SIGPIPE, quietly, whether or not the networking code ignores the signal.
                if code == EPIPE, fd == STDOUT_FILENO { endForGoneReader() }
                // A reader of messages gone is no failure of the command: they stop, quietly.
                if fd == STDOUT_FILENO || fd == STDERR_FILENO { failures.withLock { $0[fd] = code == EPIPE ? 0 : code } }
                return
            }
            offset += written
        }
    }
}

/// Thrown by a writer of stdout whose reader went away (`brados cache export -o - | head -c 300`):
/// the command unwinds (its temporary files go), then ends quietly as ``StandardIO/endForGoneReader()``.
public struct ReaderGone: Error, Sendable {
    public init() {}
}

/// The terminal settings a secret prompt changed, put back at exit if the process ends in
/// the middle of the prompt (Ctrl-C's forced exit skips the prompt's own `defer`): echo is
/// never left off.
enum TerminalRestore {
    private static let state = LockedTermios()

    static func remember(_ settings: termios) {
        _ = registered
        state.set(settings)
    }

    static func forget() { state.set(nil) }

    private static let registered: Void = { atexit { TerminalRestore.restore() } }()

    static func restore() {
        guard var settings = state.take() else { return }
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard tty >= 0 else { return }
        tcsetattr(tty, TCSAFLUSH, &settings)
        close(tty)
    }

    /// Safe because its only mutable state, `value`, is read and written only inside `lock.withLock`
    /// (`set(_:)` and `take()`), and `lock` itself is immutable.
    private final class LockedTermios: @unchecked Sendable {
        private let lock = NSLock()
        private var value: termios?
        func set(_ settings: termios?) { lock.withLock { value = settings } }
        func take() -> termios? { lock.withLock { defer { value = nil }; return value } }
    }
}
