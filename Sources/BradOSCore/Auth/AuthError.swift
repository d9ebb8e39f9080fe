/// Failures of signing in and staying signed in.
public enum AuthError: BradOSError {
    /// The profile has no credentials for the service.
    case notSignedIn(profile: String)
    /// The access token was rejected and could not be refreshed (or was rejected again).
    case sessionExpired(profile: String)
    /// The server rejected the user name or password.
    case invalidCredentials(user: String)
    /// `--password-stdin` read nothing.
    case emptyPassword

    public var summary: String {
        switch self {
        case let .notSignedIn(profile): "Profile '\(profile)' is not signed in."
        case let .sessionExpired(profile): "The session of profile '\(profile)' expired; sign in again."
        case let .invalidCredentials(user): "The server rejected the password for '\(user)'."
        case .emptyPassword: "No password was given on standard input."
        }
    }

    public var recovery: String? {
        switch self {
        case let .notSignedIn(profile), let .sessionExpired(profile):
            "Run: echo PASSWORD | brados auth login --user NAME --password-stdin" + (profile == "default" ? "" : " --profile \(profile)")
        case .invalidCredentials: "Check the user name and password, and the server (`brados config get server`)."
        case .emptyPassword: "Pipe it in, e.g. `printf %s \"$PASS\" | brados auth login --user NAME --password-stdin`."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .emptyPassword: .usage
        default: .authRequired
        }
    }
}
