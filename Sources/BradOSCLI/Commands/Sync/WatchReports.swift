import BradOSAuth
import BradOSCore
import BradOSErrors
import BradOSNetworking
import BradOSTerminal
import Foundation
import Synchronization

/// What `sync --watch` says of its domains' troubles, each once: a running watch's log is read
/// days later, and a line every cycle hides the one that matters.
///
/// - A host that cannot be reached (refused, timed out): one line when it goes, one when it
///   answers again, however many domains use it.
/// - A session that must be signed in to again (revoked, expired past renewal, a server moved
///   in the config): one line and one notification a service, however many domains use it;
///   the watch waits for the sign-in (a new one restarts it).
/// - Any other failure: said when it starts or changes, and once more when the domain works again.
///
/// Threading: any domain's task calls it; the state is behind one lock.
final class WatchReports: Sendable {
    enum Trouble: Equatable {
        case unreachable(host: String)
        case signIn(service: String)
        case failing(String)
    }

    private struct State {
        var troubles: [String: Trouble] = [:]
        var down: Set<String> = []
        /// The services whose sign-in was asked for (one line for all the domains that use one).
        var signIns: Set<String> = []
    }

    private let state = Mutex(State())
    /// A line for the person (stderr, the journal).
    let say: @Sendable (String) -> Void
    /// A session to sign in to again: the desktop is told too (`--notify`).
    let alert: @Sendable (_ summary: String, _ body: String) -> Void
    /// How long a server moved in the config waits for its sign-in before the watch says so:
    /// the person who moved it is signing in (`config set server URL`, then `auth login`).
    let signInGrace: Duration
    let now: @Sendable () -> ContinuousClock.Instant
    private let quietUntil = Mutex<ContinuousClock.Instant?>(nil)

    init(say: @escaping @Sendable (String) -> Void, alert: @escaping @Sendable (String, String) -> Void = { _, _ in },
         signInGrace: Duration = .seconds(60), now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.say = say
        self.alert = alert
        self.signInGrace = signInGrace
        self.now = now
    }

    /// The configuration changed: a session signed in to the server it named before is not
    /// said for ``signInGrace`` (the domain keeps trying, and says it after). The first such
    /// failure starts that minute too when a domain saw the change before the watch did.
    func configurationChanged() {
        let until = now() + signInGrace
        quietUntil.withLock { $0 = until }
    }

    /// What a failure of `domain` is, as these reports tell it.
    static func trouble(_ error: any Error) -> Trouble {
        if let unreachable = (error as? NetworkError)?.unreachable { return .unreachable(host: unreachable.host) }
        if let auth = error as? AuthError, auth.kind == .authRequired {
            switch auth {
            case let .sessionExpired(_, service?), let .serviceNotSignedIn(_, service), let .signedInElsewhere(_, service, _, _):
                return .signIn(service: service)
            default: return .signIn(service: Service.account.rawValue)
            }
        }
        return .failing((error as? any BradOSError)?.summary ?? "\(error)")
    }

    /// `domain` failed with `error`; said when it is news.
    func failed(_ domain: String, _ error: any Error, retrying wait: Duration) {
        if case .signedInElsewhere? = error as? AuthError {
            // The minute starts when the watch sees the configuration change, or at this first
            // such failure when a domain read the new configuration before the watch did.
            let start = now()
            let quiet = quietUntil.withLock { until in
                if until == nil { until = start + signInGrace }
                return start < until ?? start
            }
            if quiet { return }
        }
        let trouble = Self.trouble(error)
        let said: String? = state.withLock { state in
            defer { state.troubles[domain] = trouble }
            switch trouble {
            case let .unreachable(host):
                guard state.down.insert(host).inserted else { return nil }
                let reason = (error as? NetworkError)?.unreachable?.reason ?? "no answer"
                return "sync --watch: \(host) cannot be reached (\(reason)); the watch keeps trying and says so when it is back."
            case let .signIn(service):
                guard state.signIns.insert(service).inserted else { return nil }
                let recovery = (error as? any BradOSError)?.recovery.map { " \($0)" } ?? ""
                return "sync --watch \(domain): \((error as? any BradOSError)?.summary ?? "\(error)")\(recovery) The watch waits for the sign-in."
            case let .failing(text):
                guard state.troubles[domain] != trouble else { return nil }
                return "sync --watch \(domain): \(text) (trying again in \(Format.duration(wait)))"
            }
        }
        guard let said else { return }
        say(said)
        if case let .signIn(service) = trouble {
            // Said once a service, whatever domains use it.
            let account = service == Service.account.rawValue
            alert("brados: sign in to \(account ? "your account" : service) again",
                  "brados sync --watch waits for it: brados auth login" + (account ? "" : " --service \(service)"))
        }
    }

    /// A live feed paused: when it could not reach its host, as a failure to reach it.
    func paused(_ domain: String, unreachable: Unreachable?) {
        guard let unreachable else { return }
        failed(domain, NetworkError.unreachable(host: unreachable.host, reason: unreachable.reason), retrying: .zero)
    }

    /// Whether a service waits for a sign-in (a new credential then restarts the watch).
    var awaitsSignIn: Bool { state.withLock { !$0.signIns.isEmpty } }

    /// `domain` worked (a sync, a catch-up, a change followed): what was said of it ends.
    func worked(_ domain: String) {
        let said: String? = state.withLock { state in
            guard let trouble = state.troubles.removeValue(forKey: domain) else { return nil }
            switch trouble {
            case let .unreachable(host):
                guard state.down.remove(host) != nil else { return nil }
                return "sync --watch: \(host) answers again."
            case let .signIn(service):
                guard state.signIns.remove(service) != nil else { return nil }
                return "sync --watch: signed in to \(service == Service.account.rawValue ? "your account" : service) again; following it."
            case .failing: return "sync --watch \(domain): works again."
            }
        }
        if let said { say(said) }
    }
}
