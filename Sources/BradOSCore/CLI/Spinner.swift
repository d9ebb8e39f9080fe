import Foundation
import Synchronization

/// A one-line spinner on stderr while waiting for the network — only when stderr is a
/// terminal, never in pipes, logs or tests. Thread-safe.
public final class Spinner: Sendable {
    private let task: Task<Void, Never>?
    private let io: any TerminalIO
    /// Frames and the final erase are written under this lock, so no frame lands after `stop()`.
    private let running = RunningFlag()

    final class RunningFlag: Sendable {
        private let mutex = Mutex(true)
        func withLock<R>(_ body: (inout Bool) -> R) -> R { mutex.withLock { body(&$0) } }
    }

    /// Starts spinning with `message`, unless stderr is not a terminal (then it does nothing).
    public init(io: any TerminalIO, message: String) {
        self.io = io
        guard io.isErrorTerminal else {
            task = nil
            return
        }
        let running = self.running
        task = Task.detached {
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            var index = 0
            while !Task.isCancelled {
                let frame = frames[index % frames.count]
                let stillRunning = running.withLock { running in
                    if running { io.writeError("\r\(frame) \(message)") }
                    return running
                }
                if !stillRunning { return }
                index += 1
                try? await Task.sleep(for: .milliseconds(80))
            }
        }
    }

    /// Stops and erases the spinner line.
    public func stop() {
        guard let task else { return }
        task.cancel()
        running.withLock { running in
            guard running else { return }
            running = false
            io.writeError("\r\u{1B}[K")
        }
    }
}
