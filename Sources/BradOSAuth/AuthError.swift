import BradOSErrors
import BradOSNetworking
/// Failures of signing in and staying signed in.
public enum AuthError: BradOSError, Equatable {
    /// The profile has no credentials for the service.
    case notSignedIn(profile: String)
    /// The service signs in on its own (e.g. Supabase Auth) and the profile has no session for it.
    case serviceNotSignedIn(profile: String, service: String)
    /// The access token was rejected and could not be refreshed (or was rejected again).
    /// `service`: a service with its own accounts (signed in with `--service`); `nil` for the account.
    case sessionExpired(profile: String, service: String? = nil)
    /// The server rejected the user name or password.
    case invalidCredentials(user: String)
    /// `--password-stdin` read nothing, or nothing was typed at the prompt.
    case emptyPassword
    /// Standard input is not a terminal (nobody to ask) and `--password-stdin` was not given.
    case passwordNeeded(user: String)
    /// `--token-stdin` read nothing.
    case emptyToken
    /// The profile signed in to one server, and the service now points at another:
    /// its tokens are never sent there.
    case signedInElsewhere(profile: String, service: String, signedInTo: String, using: String)
    /// The account has two-factor authentication and no (or a wrong) verification code was given.
    case verificationCodeNeeded(user: String, service: String, wrong: Bool)
    /// A token given with `--token-stdin` was refused by the service.
    case tokenRejected(service: String)
    /// A sign-in code expired (or is unknown) before it was approved.
    case linkExpired(service: String)
    /// The system keyring could not store or give a secret (``CredentialStore``).
    case keyring(KeyringFailure)
    /// `auth logout` with changes the person made and has not sent: each as `plan: weight 85 kg`;
    /// `interactive`: the person was asked and said no (else a script that did not say `--discard-pending`).
    case unsentChanges(profile: String, changes: [String], send: [String], interactive: Bool)

    /// The profile never signed in to the service (or signed out of it): not a failure of
    /// `brados sync`, which skips the domain and says so with `--verbose` and `--json`. An
    /// expired or revoked session is not this: it still fails (exit 4).
    public var isNeverSignedIn: Bool {
        switch self {
        case .notSignedIn, .serviceNotSignedIn: true
        default: false
        }
    }

    public var summary: String {
        switch self {
        case let .notSignedIn(profile): "Profile '\(profile)' is not signed in."
        case let .serviceNotSignedIn(profile, service): "Profile '\(profile)' is not signed in to the \(service) service, which has its own accounts."
        case let .sessionExpired(profile, service?): "The \(service) session of profile '\(profile)' expired; sign in to \(service) again."
        case let .sessionExpired(profile, nil): "The session of profile '\(profile)' expired; sign in again."
        case let .invalidCredentials(user): "The server rejected the password for '\(user)'."
        case .emptyPassword: "No password was given."
        case let .passwordNeeded(user): "The password for '\(user)' cannot be asked for: standard input is not a terminal."
        case .emptyToken: "No token was given on standard input."
        case let .signedInElsewhere(profile, service, signedInTo, using):
            "Profile '\(profile)' is signed in to \(signedInTo), but the \(service) service now uses \(using)."
        case let .verificationCodeNeeded(user, service, wrong):
            wrong ? "The \(service) account '\(user)' refused the verification code." : "The \(service) account '\(user)' uses two-factor authentication: a verification code is needed."
        case let .tokenRejected(service): "The \(service) account server refused the token."
        case let .linkExpired(service): "The \(service) sign-in code expired before it was approved (or it is unknown)."
        case let .keyring(failure): "The system keyring could not be used: \(failure.reason)."
        case let .unsentChanges(profile, changes, _, interactive):
            (interactive ? "Kept profile '\(profile)' signed in: " : "Profile '\(profile)' was not signed out: ")
                + "\(changes.count == 1 ? "1 change" : "\(changes.count) changes") you made \(changes.count == 1 ? "has" : "have") not been sent yet:\n"
                + changes.map { "    " + $0 }.joined(separator: "\n")
        }
    }

    public var recovery: String? {
        switch self {
        case let .notSignedIn(profile), let .sessionExpired(profile, nil):
            "Run: echo PASSWORD | brados auth login --user NAME --password-stdin" + (profile == "default" ? "" : " --profile \(profile)")
        case let .serviceNotSignedIn(profile, service), let .sessionExpired(profile, service?):
            AccountServers.has(service)
                ? "Run: brados auth login --service \(service)" + (profile == "default" ? "" : " --profile \(profile)") + " (a code to approve in the browser; or --token-stdin, or --user NAME --password-stdin)"
                : "Run: echo PASSWORD | brados auth login --service \(service) --user EMAIL --password-stdin" + (profile == "default" ? "" : " --profile \(profile)")
        case .invalidCredentials: "Check the user name and password, and the server (`brados config get server`)."
        case .emptyPassword: "Type it at the prompt, or in a script pipe it in: `printf %s \"$PASS\" | brados auth login --user NAME --password-stdin`."
        case .passwordNeeded: "In a script, pipe it in with --password-stdin: `printf %s \"$PASS\" | brados auth login --user NAME --password-stdin`; at a terminal brados asks for it."
        case .emptyToken: "Pipe it in, e.g. `brados auth login --service NAME --token-stdin < token.txt`."
        case let .signedInElsewhere(profile, service, _, using):
            "Sign in there (`brados auth login --user NAME --password-stdin\(service == Service.account.rawValue ? "" : " --service \(service)")\(profile == "default" ? "" : " --profile \(profile)")`), or point the service back (`brados config get server`). Tokens are never sent to a server that did not issue them (\(using))."
        case .verificationCodeNeeded(_, let service, _):
            "Add --code with the current code from your authenticator app, or sign in with a code to approve instead: brados auth login --service \(service)"
        case let .tokenRejected(service):
            "Copy the token again from an app signed in to \(service), or sign in with a code to approve instead: brados auth login --service \(service)"
        case let .linkExpired(service): "Start again: brados auth login --service \(service)"
        case let .keyring(failure):
            switch failure {
            case .noLibrary: "Install libsecret (apt install libsecret-1-0), or keep secrets in files: brados config set credentials.store file"
            case .noService:
                "Run brados in a session with a keyring (a desktop login; headless: dbus-run-session and gnome-keyring-daemon --unlock), or keep secrets in files: brados config set credentials.store file (and move them: brados auth migrate --to file)"
            case .locked: "Unlock the keyring (seahorse, or sign in to the desktop), then run the command again; brados never prompts for it."
            case .timedOut: "Check that the keyring daemon runs (is it stopped?), or wait longer: BRADOS_KEYRING_TIMEOUT=30s."
            case .failed: "Run the command again; `brados doctor` says whether the keyring answers."
            }
        case let .unsentChanges(profile, changes, send, _):
            (send.isEmpty ? "Copy what cannot be read elsewhere to keep it" : "Send \(changes.count == 1 ? "it" : "them") first (`\(send.joined(separator: "`, `"))`)")
                + ", or sign out and erase \(changes.count == 1 ? "it" : "them"): brados auth logout --discard-pending"
                + (profile == "default" ? "" : " --profile \(profile)")
        }
    }

    public var kind: FailureKind {
        switch self {
        case .emptyPassword, .emptyToken, .passwordNeeded: .usage
        case .keyring: .keyring
        case .unsentChanges: .refused
        default: .authRequired
        }
    }
}
