import BradOSAuth
@testable import BradOSCLI
import BradOSNetworking
import Foundation
import Synchronization
import Testing

/// What `sync --watch` says of its troubles, without a server: each once, and once when it ends.
@Suite("sync --watch: its reports")
struct WatchReportsTests {
    final class Said: Sendable {
        let lines = Mutex<[String]>([])
        let alerts = Mutex<[String]>([])
    }

    func reports() -> (WatchReports, Said) {
        let said = Said()
        return (WatchReports(say: { line in said.lines.withLock { $0.append(line) } },
                             alert: { summary, _ in said.alerts.withLock { $0.append(summary) } }), said)
    }

    /// A clock the test moves.
    final class TestClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }

    /// Reports on a clock the test moves, with a minute's grace for a moved server's sign-in.
    func timedReports() -> (WatchReports, Said, TestClock) {
        let said = Said()
        let clock = TestClock()
        let reports = WatchReports(say: { line in said.lines.withLock { $0.append(line) } }, alert: { summary, _ in said.alerts.withLock { $0.append(summary) } },
                                   signInGrace: .seconds(60), now: { clock.now })
        return (reports, said, clock)
    }

    @Test("a server moved in the config waits a minute for its sign-in before the watch says so; other troubles are said at once")
    func movedServerWaitsForTheSignIn() {
        let (reports, said, clock) = timedReports()
        let elsewhere = AuthError.signedInElsewhere(profile: "default", service: "supabase", signedInTo: "http://127.0.0.1:1", using: "http://127.0.0.1:2")
        reports.configurationChanged()
        clock.advance(.seconds(59))
        reports.failed("coach", elsewhere, retrying: .seconds(30))
        #expect(said.lines.withLock { $0 }.isEmpty && said.alerts.withLock { $0 }.isEmpty, "within the minute: \(said.lines.withLock { $0 })")
        reports.worked("coach")
        #expect(said.lines.withLock { $0 }.isEmpty, "nothing to end that was not said")
        clock.advance(.seconds(2))
        reports.failed("coach", elsewhere, retrying: .seconds(30))
        #expect(said.lines.withLock { $0 }.count == 1 && said.alerts.withLock { $0 }.count == 1, "after it: \(said.lines.withLock { $0 })")
        reports.configurationChanged()
        reports.failed("visits", NetworkError.unreachable(host: "127.0.0.1:2", reason: "connection refused"), retrying: .seconds(30))
        #expect(said.lines.withLock { $0 }.count == 2, "a host down is said at once")
    }

    @Test("a domain that reads the moved server before the watch sees the change waits the same minute (CI saw the line first)")
    func movedServerSeenFirstByADomain() {
        let (reports, said, clock) = timedReports()
        let elsewhere = AuthError.signedInElsewhere(profile: "default", service: "plex", signedInTo: "http://127.0.0.1:1", using: "http://127.0.0.1:2")
        reports.failed("library", elsewhere, retrying: .seconds(30))
        clock.advance(.seconds(1))
        reports.configurationChanged()
        clock.advance(.seconds(30))
        reports.failed("library", elsewhere, retrying: .seconds(30))
        #expect(said.lines.withLock { $0 }.isEmpty, "within the minute: \(said.lines.withLock { $0 })")
        clock.advance(.seconds(31))
        reports.failed("library", elsewhere, retrying: .seconds(30))
        #expect(said.lines.withLock { $0 }.count == 1 && said.alerts.withLock { $0 }.count == 1, "after it: \(said.lines.withLock { $0 })")
    }

    @Test("a host down is one line for every domain that uses it, however often they fail, and one when the first works again")
    func hostDown() {
        let (reports, said) = reports()
        let down = NetworkError.unreachable(host: "127.0.0.1:8080", reason: "connection refused")
        for _ in 0..<10 {
            for domain in ["visits", "mealplan", "plan"] { reports.failed(domain, down, retrying: .seconds(30)) }
        }
        reports.paused("coach", unreachable: down.unreachable)
        #expect(said.lines.withLock { $0 } == [
            "sync --watch: 127.0.0.1:8080 cannot be reached (connection refused); the watch keeps trying and says so when it is back.",
        ])
        reports.worked("visits")
        reports.worked("mealplan")
        reports.worked("coach")
        #expect(said.lines.withLock { $0.last } == "sync --watch: 127.0.0.1:8080 answers again.")
        #expect(said.lines.withLock { $0.count } == 2)
    }

    @Test("a session to sign in to again is one line and one alert, repeated failures say nothing, a sign-in says so once")
    func signIn() {
        let (reports, said) = reports()
        let revoked = AuthError.sessionExpired(profile: "default", service: "supabase")
        for _ in 0..<5 { reports.failed("coach", revoked, retrying: .seconds(300)) }
        #expect(said.lines.withLock { $0.count } == 1)
        #expect(said.lines.withLock { $0.first?.hasSuffix("The watch waits for the sign-in.") } == true)
        #expect(said.alerts.withLock { $0 } == ["brados: sign in to supabase again"])
        // The account's session, used by two domains: one line for both.
        let account = AuthError.sessionExpired(profile: "default", service: nil)
        reports.failed("visits", account, retrying: .seconds(300))
        reports.failed("mealplan", account, retrying: .seconds(300))
        #expect(said.lines.withLock { $0.count } == 2 && said.alerts.withLock { $0.count } == 2)
        reports.worked("coach")
        reports.worked("coach")
        #expect(said.lines.withLock { $0.last } == "sync --watch: signed in to supabase again; following it.")
        reports.worked("visits")
        reports.worked("mealplan")
        #expect(said.lines.withLock { $0.count } == 4, "\(said.lines.withLock { $0 })")
    }

    @Test("another failure is said when it starts and when it changes, not each time")
    func otherFailures() {
        let (reports, said) = reports()
        let failing = NetworkError.http(status: 500, method: "GET", path: "/api/visits", message: nil, retryAfter: nil)
        for _ in 0..<4 { reports.failed("visits", failing, retrying: .seconds(30)) }
        reports.failed("visits", NetworkError.invalidResponse(path: "/api/visits", detail: "not valid JSON"), retrying: .seconds(30))
        reports.worked("visits")
        #expect(said.lines.withLock { $0.count } == 3, "\(said.lines.withLock { $0 })")
        #expect(said.lines.withLock { $0.last } == "sync --watch visits: works again.")
    }

    @Test("a Retry-After longer than the restart is waited out; a session to sign in to waits the domain's interval")
    func waits() {
        let limited = NetworkError.http(status: 429, method: "POST", path: "/v1/plans/generate", message: nil, retryAfter: .seconds(120))
        #expect(SyncWatch.wait(after: limited, interval: .seconds(300), restart: .seconds(30)) == .seconds(120))
        let brief = NetworkError.http(status: 429, method: "POST", path: "/v1/plans/generate", message: nil, retryAfter: .seconds(2))
        #expect(SyncWatch.wait(after: brief, interval: .seconds(300), restart: .seconds(30)) == .seconds(30))
        #expect(SyncWatch.wait(after: AuthError.sessionExpired(profile: "default", service: "supabase"), interval: .seconds(300),
                               restart: .seconds(30)) == .seconds(300))
    }

    @Test("a watch that fails soon after it starts waits longer before each exit: 10 s doubling to 10 min")
    func restartBackoff() {
        #expect((1...8).map { WatchRestarts.delay(after: $0) } == [10, 20, 40, 80, 160, 320, 600, 600].map { Duration.seconds($0) })
        #expect(WatchRestarts.delay(after: 100) == .seconds(600))
    }
}
