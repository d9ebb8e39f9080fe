import BradOSCore
import BradOSTerminal
import Foundation
import Synchronization

/// A ``TerminalIO`` that records what is written and serves a fixed stdin and environment.
public final class CapturingIO: TerminalIO, Sendable {
    private let buffers = Mutex<(out: String, err: String)>(("", ""))
    public let environment: [String: String]
    public let input: Data
    public let isOutputTerminal: Bool
    public let isErrorTerminal: Bool
    /// A write that failed, as ``StandardIO`` would report it (`nil`: every write took).
    public let writeFailure: OutputError?

    public init(environment: [String: String], input: Data = Data(), terminal: Bool = false, writeFailure: OutputError? = nil) {
        self.environment = environment
        self.input = input
        isOutputTerminal = terminal
        isErrorTerminal = terminal
        self.writeFailure = writeFailure
    }

    public func write(_ text: String) { buffers.withLock { $0.out += text } }
    public func writeError(_ text: String) { buffers.withLock { $0.err += text } }
    public func readInput() -> Data { input }
    public var stdout: String { buffers.withLock { $0.out } }
    public var stderr: String { buffers.withLock { $0.err } }
}
