/// The kind of a failure. It decides the process exit code (see ``ExitStatus``)
/// and nothing else; the message comes from the error itself.
public enum FailureKind: String, Sendable, Equatable, CaseIterable {
    /// Anything not covered below.
    case general
    /// The command line was wrong.
    case usage
    /// The thing asked for does not exist (locally or on the server).
    case notFound
    /// Not signed in, or the session expired and could not be refreshed.
    case authRequired
    /// The command needs the network and there is none (or `--offline` was given).
    case offline
    /// The server failed (5xx after retries, malformed response, dropped connection).
    case server
    /// The server rejected the request (a 4xx other than 401/404/429).
    case rejected
    /// The server is rate limiting (429) for longer than brados waits.
    case rateLimited
    /// Stored or received data failed a check (checksum, hostile archive, corrupt input).
    case integrity
    /// A local write failed because the file system has no room left.
    case diskFull
    /// Another brados holds the profile (an import, a cache clear, a sign-out) for longer than
    /// `profile.lock-timeout`.
    case busy
    /// An encrypted archive could not be opened with the keys or passphrase given.
    case decryption
    /// The system keyring did not answer, is locked, or failed, where a secret lives or must go.
    case keyring
    /// brados refused here, before anything changed, to keep what is the person's: changes
    /// not yet sent, or data of another account (never the server's answer: that is ``rejected``).
    case refused
    /// The user interrupted the command.
    case interrupted
}

/// The error contract every subsystem's error type follows.
///
/// Each subsystem has one error type (``StorageError``, ``NetworkError``, ``AuthError``,
/// ``ConfigError`` …) conforming to this protocol, so the CLI can always say what happened
/// and what to do next, and ``ExitStatus`` can map it to an exit code in one place.
public protocol BradOSError: Error, CustomStringConvertible, Sendable {
    /// What happened, in one sentence.
    var summary: String { get }
    /// What the user can do next; `nil` when there is nothing useful to suggest.
    var recovery: String? { get }
    /// Which exit code this failure gets.
    var kind: FailureKind { get }
    /// Whether trying the same operation again may succeed. `false` by default.
    var isRetryable: Bool { get }
    /// The failure in a log line: ``summary`` unless that quotes what a server sent (an error
    /// body's message, a value that failed validation), which never goes into a log at any
    /// verbosity (spec 004 §6.5: no user's body values in logs); the person still sees the
    /// whole ``summary`` on their own screen.
    var logSummary: String { get }
}

extension BradOSError {
    public var isRetryable: Bool { false }
    public var recovery: String? { nil }
    public var logSummary: String { summary }
    public var description: String {
        guard let recovery else { return summary }
        return "\(summary)\n\(recovery)"
    }
}

/// A user-facing failure that does not belong to a richer subsystem type
/// (used by commands for plain "not found" / "invalid" answers).
public struct CommandError: BradOSError {
    public var summary: String
    public var recovery: String?
    public var kind: FailureKind

    public init(_ summary: String, recovery: String? = nil, kind: FailureKind = .general) {
        self.summary = summary
        self.recovery = recovery
        self.kind = kind
    }
}

extension Error {
    /// One line for the person's screen (notices, the last failure of a background refresh): a
    /// ``BradOSError``'s summary, else the error's description. Never for a log: ``logText``.
    public var summaryText: String { (self as? any BradOSError)?.summary ?? "\(self)" }

    /// One line for a log: a ``BradOSError``'s ``BradOSError/logSummary`` (no text a server
    /// sent), else only the error's type (a library's description may quote what it parsed).
    public var logText: String {
        if let error = self as? any BradOSError { return error.logSummary }
        if self is CancellationError { return "cancelled" }
        return "\(type(of: self))"
    }
}
