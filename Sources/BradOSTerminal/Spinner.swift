import Foundation
import Synchronization

/// A one-line spinner on stderr while waiting for the network, which turns into a progress
/// bar once counts are known (`update(done:total:)`) — only where ``TerminalIO/drawsProgress``
/// (stderr a terminal that is not `TERM=dumb`, no `display.progress off`, not the accessible
/// mode), never in pipes, logs or tests. Thread-safe.
public final class Spinner: Sendable {
    private let task: Task<Void, Never>?
    private let io: any TerminalIO
    /// Frames and the final erase are written under this lock, so no frame lands after `stop()`.
    private let running = RunningFlag()

    final class RunningFlag: Sendable {
        private let mutex = Mutex(true)
        private let counts = Mutex<(done: Int, total: Int?)?>(nil)
        private let text = Mutex<String?>(nil)
        func withLock<R>(_ body: (inout Bool) -> R) -> R { mutex.withLock { body(&$0) } }
        func setCounts(_ value: (done: Int, total: Int?)) { counts.withLock { $0 = value } }
        var progress: (done: Int, total: Int?)? { counts.withLock { $0 } }
        func setMessage(_ value: String) { text.withLock { $0 = value } }
        var message: String? { text.withLock { $0 } }
    }

    /// Shows `done` of `total` (a bar when the total is known).
    public func update(done: Int, total: Int?) { running.setCounts((done, total)) }

    /// Replaces the message (e.g. the time left).
    public func update(message: String) { running.setMessage(message) }

    static func bar(done: Int, total: Int?) -> String {
        guard let total, total > 0 else { return "\(done)" }
        let width = 24
        let filled = min(width, done * width / total)
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "] \(done)/\(total)"
    }

    /// Starts spinning with `message`, unless stderr is not a terminal (then it does nothing).
    /// - Parameters:
    ///   - delay: nothing is drawn before it has passed (work that is usually quick
    ///     shows no flicker).
    ///   - counting: after a second, how long it has waited so far, and that Ctrl-C stops it
    ///     (a person waiting for a server is told for how long).
    public init(io: any TerminalIO, message: String, after delay: Duration = .zero, counting: Bool = false) {
        self.io = io
        guard io.drawsProgress else {
            // A terminal that cannot redraw (TERM=dumb, a screen reader, display.progress off):
            // what is being waited for, said once as a line when the wait passes a second.
            guard io.isErrorTerminal else {
                task = nil
                return
            }
            let running = self.running
            task = Task.detached {
                try? await Task.sleep(for: max(delay, .seconds(1)))
                let shown = SafeText.visible(running.message ?? message)
                running.withLock { running in
                    if running, !Task.isCancelled { StatusLine.shared.writeLine("brados: \(shown)\n", to: io) }
                }
            }
            return
        }
        let running = self.running
        let started = ContinuousClock.now
        task = Task.detached {
            if delay > .zero { try? await Task.sleep(for: delay) }
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            var index = 0
            while !Task.isCancelled {
                let frame = frames[index % frames.count]
                let counts = running.progress.map { " " + Spinner.bar(done: $0.done, total: $0.total) } ?? ""
                var shown = running.message ?? message
                let waited = Int((ContinuousClock.now - started).components.seconds)
                if counting, waited >= 1 { shown += " \(waited) s · Ctrl-C stops" }
                let stillRunning = running.withLock { running in
                    if running { StatusLine.shared.draw("\(frame) \(SafeText.visible(shown))\(counts)", to: io) }
                    return running
                }
                if !stillRunning { return }
                index += 1
                try? await Task.sleep(for: .milliseconds(80))
            }
        }
    }

    /// Runs `body` with a spinner showing `message` (when `enabled` and stderr is a terminal).
    /// - Throws: what `body` throws (the spinner is erased first).
    public static func run<T>(_ message: String, io: any TerminalIO, enabled: Bool = true, _ body: () async throws -> T) async rethrows -> T {
        let spinner = enabled ? Spinner(io: io, message: message) : nil
        defer { spinner?.stop() }
        return try await body()
    }

    /// Runs blocking `body` with a spinner it can update with progress; the spinner is
    /// erased however `body` ends.
    /// - Throws: what `body` throws (the spinner is erased first).
    public static func showing<T>(_ message: String, io: any TerminalIO, enabled: Bool = true, _ body: (Spinner?) throws -> T) rethrows -> T {
        let spinner = enabled ? Spinner(io: io, message: message) : nil
        defer { spinner?.stop() }
        return try body(spinner)
    }

    /// Stops and erases the spinner line.
    public func stop() {
        guard let task else { return }
        task.cancel()
        running.withLock { running in
            guard running else { return }
            running = false
            StatusLine.shared.erase(io)
        }
    }
}

/// The status line a spinner draws on stderr: one per process, as stderr is. Every other
/// stderr line (notices, log lines) goes through ``writeLine(_:to:)``, which erases a drawn
/// frame first: a notice never lands at the end of a spinner's line.
public final class StatusLine: Sendable {
    /// The process's (stderr is the process's).
    public static let shared = StatusLine()

    /// Whether a frame is on the line now.
    private let drawn = Mutex(false)

    init() {}

    /// Draws `text` over the line (no newline).
    func draw(_ text: String, to io: any TerminalIO) {
        drawn.withLock { drawn in
            io.writeError("\r\(text)\u{1B}[K")
            drawn = true
        }
    }

    /// Erases a drawn frame.
    func erase(_ io: any TerminalIO) {
        drawn.withLock { drawn in
            guard drawn else { return }
            io.writeError("\r\u{1B}[K")
            drawn = false
        }
    }

    /// Writes `text` (whole lines) to stderr, erasing a spinner's frame first; the spinner
    /// draws its next frame below.
    public func writeLine(_ text: String, to io: any TerminalIO) {
        drawn.withLock { drawn in
            if drawn { io.writeError("\r\u{1B}[K") }
            drawn = false
            io.writeError(text)
        }
    }
}
