import ArgumentParser
import BradOSErrors
import Foundation

/// The one place that maps failures to process exit codes, and the one table of what each
/// code means. The root `--help` line, `brados exit-codes`, the man page's EXIT STATUS and
/// the README's table are all rendered from ``table`` (`make man` and `make readme` write the
/// last two; a test checks they agree).
public enum ExitStatus {
    public static let success: Int32 = 0
    /// Not a row of the table: the reader of stdout went away (``ReaderGone``), so the process
    /// ends by SIGPIPE, quietly, as Unix tools do (the shell sees 141).
    public static let readerGone: Int32 = 128 + 13
    /// Not a row of the table: an external plugin (`brados-NAME` on `PATH`) was found and could
    /// not be started (not executable, a bad interpreter line). 126 is what a shell gives a
    /// command it found and could not run; once started, the plugin's own exit code is brados's.
    public static let pluginNotRunnable: Int32 = 126

    /// One exit code: its failure kind, a name of a few words, and what it means in full.
    public struct Entry: Sendable, Equatable {
        public var code: Int32
        /// `nil` for success.
        public var kind: FailureKind?
        /// A few words: `needs network`.
        public var name: String
        /// One or two sentences; `code spans` in backticks.
        public var meaning: String
    }

    /// Every exit code brados uses, in order.
    public static let table: [Entry] = [
        Entry(code: 0, kind: nil, name: "ok", meaning: "Success."),
        Entry(code: 1, kind: .general, name: "failure", meaning: "A failure not covered below."),
        Entry(code: 3, kind: .notFound, name: "not found", meaning: "Not found, locally or on the server."),
        Entry(code: 4, kind: .authRequired, name: "sign in",
              meaning: "Sign-in required: not signed in, or the session expired (`brados auth login`)."),
        Entry(code: 5, kind: .offline, name: "needs network",
              meaning: "Needs network: offline, the server unreachable, or `--offline` with nothing cached."),
        Entry(code: 6, kind: .server, name: "server failure",
              meaning: "Server failure: 5xx after retries, a malformed response, a dropped connection."),
        Entry(code: 7, kind: .rejected, name: "rejected", meaning: "The request was rejected by the server (4xx)."),
        Entry(code: 8, kind: .integrity, name: "integrity",
              meaning: "Integrity failure: corrupt or hostile data, a checksum mismatch."),
        Entry(code: 9, kind: .rateLimited, name: "rate limited",
              meaning: "Rate limited: the server asked to wait longer than brados waits (the error says how long)."),
        Entry(code: 10, kind: .diskFull, name: "disk full",
              meaning: "The disk is full: a write failed for lack of space (the error names the file, or the output it could not write); nothing stored was lost."),
        Entry(code: 11, kind: .busy, name: "profile busy",
              meaning: "The profile is busy: another brados (an import, a cache clear, a sign-out; for those three, a running sync --watch) held it longer than `profile.lock-timeout`; the message names it, and `--wait` waits until it ends."),
        Entry(code: 12, kind: .decryption, name: "cannot decrypt",
              meaning: "An encrypted archive that no key or passphrase given opens: the wrong key, the wrong passphrase, or none given."),
        Entry(code: 13, kind: .keyring, name: "keyring",
              meaning: "The system keyring did not answer, is locked, or failed, where a secret lives or `credentials.store` is `keyring` (`brados doctor` says which)."),
        Entry(code: 14, kind: .refused, name: "refused",
              meaning: "Refused before anything changed, to keep what is yours: changes not yet sent (an import that would replace them, a sign-out), another account's data, or a weight far from your last one in a script (the error says how to go on; `--yes` where it applies)."),
        Entry(code: 64, kind: .usage, name: "usage", meaning: "Usage error: bad flags or arguments."),
        Entry(code: 130, kind: .interrupted, name: "interrupted",
              meaning: "Interrupted by Ctrl-C; 143 by SIGTERM and 129 by SIGHUP (a closed terminal or SSH session). The command first undoes what it started (an optimistic delete not yet sent is restored, a half-written archive discarded); a change already sent is said to be of unknown outcome and settled later, never rolled back. A second signal ends it at once."),
    ]

    /// The exit code for a failure kind: its row of ``table`` (every kind has one; a test checks).
    public static func code(for kind: FailureKind) -> Int32 {
        for entry in table where entry.kind == kind { return entry.code }
        return 1
    }

    /// The exit code for any error a command can throw.
    public static func code(for error: any Error) -> Int32 {
        if let error = error as? any BradOSError { return code(for: error.kind) }
        if error is CancellationError { return code(for: .interrupted) }
        if let exit = error as? ExitCode { return exit.rawValue }
        return code(for: .general)
    }
}

extension ExitStatus {
    /// The root `--help` line: `Exit codes: 0 ok, 1 failure, …, 130 interrupted.`
    public static var helpLine: String {
        // A loop, not map/joined: the root command's help is built on every start-up.
        var line = "Exit codes:"
        for (index, entry) in table.enumerated() { line += (index == 0 ? " " : ", ") + String(entry.code) + " " + entry.name }
        return line + " (`brados exit-codes` says more)."
    }

    /// The README's table (Markdown).
    public static var markdown: String {
        (["| code | meaning |", "|---|---|"] + table.map { "| \($0.code) | \($0.meaning) |" }).joined(separator: "\n") + "\n"
    }

    /// The man page's EXIT STATUS section (mdoc).
    public static var mdoc: String {
        var lines = [".Sh EXIT STATUS", ".Bl -tag -width 4n -compact"]
        for entry in table {
            lines.append(".It \(entry.code)")
            lines.append(contentsOf: mdocText(entry.meaning))
        }
        lines.append(".El")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text with `code spans` as mdoc: each span on a line of its own (`.Ql`), with the
    /// parenthesis before it and the punctuation after it as its delimiters.
    static func mdocText(_ text: String) -> [String] {
        var lines: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "`"), let close = rest[rest.index(after: open)...].firstIndex(of: "`") {
            var before = rest[..<open].trimmingCharacters(in: .whitespaces)
            var opening = ""
            if before.hasSuffix("(") {
                before = String(before.dropLast()).trimmingCharacters(in: .whitespaces)
                opening = "( "
            }
            if !before.isEmpty { lines.append(before) }
            var after = rest[rest.index(after: close)...]
            var punctuation = ""
            while let first = after.first, ".,;:)".contains(first) {
                punctuation += " \(first)"
                after = after.dropFirst()
            }
            lines.append(".Ql \(opening)\(rest[rest.index(after: open)..<close])\(punctuation)")
            rest = after
        }
        let tail = rest.trimmingCharacters(in: .whitespaces)
        if !tail.isEmpty { lines.append(tail) }
        return lines
    }
}
