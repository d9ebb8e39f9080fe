import ArgumentParser

/// The one place that maps failures to process exit codes.
///
/// | code | meaning |
/// |---|---|
/// | 0 | success |
/// | 1 | failure not covered below |
/// | 3 | not found |
/// | 4 | sign-in required (not signed in, or the session expired) |
/// | 5 | needs network (offline, server unreachable, or `--offline`) |
/// | 6 | server failure (5xx after retries, malformed response) |
/// | 7 | request rejected by the server (4xx) |
/// | 8 | integrity failure (corrupt or hostile data, checksum mismatch) |
/// | 9 | rate limited by the server for longer than brados waits |
/// | 10 | the disk is full (nothing stored was lost) |
/// | 11 | the profile is busy: another brados held it past `profile.lock-timeout` |
/// | 12 | an encrypted archive: no key or passphrase given opens it |
/// | 64 | usage error (bad flags or arguments) |
/// | 130 | interrupted |
public enum ExitStatus {
    public static let success: Int32 = 0

    /// The exit code for a failure kind.
    public static func code(for kind: FailureKind) -> Int32 {
        switch kind {
        case .general: 1
        case .notFound: 3
        case .authRequired: 4
        case .offline: 5
        case .server: 6
        case .rejected: 7
        case .integrity: 8
        case .rateLimited: 9
        case .diskFull: 10
        case .busy: 11
        case .decryption: 12
        case .usage: 64
        case .interrupted: 130
        }
    }

    /// The exit code for any error a command can throw.
    public static func code(for error: any Error) -> Int32 {
        if let error = error as? any BradOSError { return code(for: error.kind) }
        if error is CancellationError { return code(for: .interrupted) }
        if let exit = error as? ExitCode { return exit.rawValue }
        return code(for: .general)
    }
}
