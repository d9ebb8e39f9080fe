import Foundation

/// A one-line spinner on stderr while waiting for the network — only when stderr is a
/// terminal, never in pipes, logs or tests. Thread-safe.
public final class Spinner: Sendable {
    private let task: Task<Void, Never>?
    private let io: any TerminalIO

    /// Starts spinning with `message`, unless stderr is not a terminal (then it does nothing).
    public init(io: any TerminalIO, message: String) {
        self.io = io
        guard io.isErrorTerminal else {
            task = nil
            return
        }
        task = Task.detached {
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            var index = 0
            while !Task.isCancelled {
                io.writeError("\r\(frames[index % frames.count]) \(message)")
                index += 1
                try? await Task.sleep(for: .milliseconds(80))
            }
        }
    }

    /// Stops and erases the spinner line.
    public func stop() {
        guard let task else { return }
        task.cancel()
        io.writeError("\r\u{1B}[K")
    }
}
