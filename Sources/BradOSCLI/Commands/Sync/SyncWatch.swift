import BradOSAuth
import BradOSCalendar
import BradOSCore
import BradOSErrors
import BradOSNetworking
import BradOSNotifications
import BradOSStorage
import BradOSTerminal
import Foundation
import Synchronization

/// `brados sync --watch`: one long-running process that keeps every domain's cache fresh.
/// A domain that ``FollowsLive`` (the coach over Supabase Realtime, the library over Plex's
/// notifications) follows its service, catching up after every gap; the others that ``Syncs``
/// run their `sync` every ``Syncs/watchInterval``, their policy deciding what is fetched (a
/// domain that does neither has nothing to keep fresh). A domain that fails is reported once
/// (``WatchReports``) and started again after `restart`, or after the server's `Retry-After`
/// when longer; the others go on. It ends only when cancelled (Ctrl-C, SIGTERM from systemd).
///
/// It follows its configuration: when the config file or the profile's sign-ins change (looked
/// at every ``configCheck``), or on SIGHUP under a service manager, every domain starts again
/// with an environment built anew, and one line says what changed.
struct SyncWatch {
    let env: AppEnvironment
    /// The domains `--domains` names (every domain when `nil`), found again in each environment.
    let domains: [String]?
    let options: SyncOptions
    /// `--verbose`: a line for what each domain does (a catch-up, a refresh, a reconnect): the
    /// operation lines (``OperationLog``, at info), not the debug log `--verbose` means elsewhere.
    let verbose: Bool
    /// `--notify` (else `watch.notify` says).
    let notify: Bool
    var restart: Duration = .seconds(30)
    /// How often the config file and the sign-ins are looked at (two `stat`s).
    var configCheck: Duration = .seconds(2)
    /// One writer of `calendar.file` at a time (domains sync on their own tasks).
    let calendarWriter = CalendarWriter()

    /// Brings `calendar.file` up to date after `changed` (every domain when `nil`) synced; a
    /// failure is a notice, and the watch goes on.
    func keepCalendar(_ env: AppEnvironment, changed: String?) {
        calendarWriter.lock.withLock { saidOtherProfile in
            do { try CalendarFile.update(env, changed: changed.map { [$0] }) } catch let error as CalendarError {
                // Another profile's calendar: said once, left as it is.
                if !saidOtherProfile { env.output.notice("sync --watch calendar.file: \(error.description)") }
                saidOtherProfile = true
            } catch {
                env.output.notice("sync --watch calendar.file: \(error.summaryText) (written again on the next change)")
            }
        }
    }

    /// Where the watch's configuration stands: the config file's and the profile's sign-ins'
    /// identities, and how many SIGHUPs came.
    struct Stamp: Equatable, Sendable {
        var config: String?
        var hangups: Int

        init(_ env: AppEnvironment, _ hangups: Hangups) {
            config = FileSystem.identity(of: env.paths.configFile)
            self.hangups = hangups.count.withLock { $0 }
        }
    }

    /// The profile's sign-ins as the watch follows them: who is signed in where, per service
    /// (never a token). Every command that renews a token rewrites the credentials file, many
    /// times a day: that is no change to the watch. Someone signing in, out or elsewhere is; so
    /// is any new credential while a service waits for its sign-in (the same account again).
    /// The file is looked at (its identity) every check; read only when it changed.
    final class SignIns: Sendable {
        private struct State { var file: String?; var who: [String]; var moved = false }
        private let state: Mutex<State>

        init(_ env: AppEnvironment) { state = Mutex(State(file: Self.file(env), who: Self.who(env))) }

        static func file(_ env: AppEnvironment) -> String? {
            FileSystem.identity(of: env.paths.credentialsDirectory.appendingPathComponent("\(env.profile.name.rawValue).json"))
        }

        static func who(_ env: AppEnvironment) -> [String] {
            let set = env.credentials.load()
            let all = (set.account.map { ["account": $0] } ?? [:]).merging(set.services) { a, _ in a }
            return all.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.user) \($0.value.userID ?? "") \($0.value.server)" }
        }

        /// Whether the watch must start again for the sign-ins: someone else is signed in, or
        /// (`waiting`) a credential came while a service waits for one.
        func changed(_ env: AppEnvironment, waiting: Bool) -> Bool {
            let file = Self.file(env)
            return state.withLock { state in
                guard file != state.file else { return false }
                state.file = file
                let who = Self.who(env)
                guard who != state.who else { return waiting }
                state.who = who
                state.moved = true
                return true
            }
        }

        /// Whether who is signed in moved since the last time asked; then follows `env` (its profile).
        func tookMove(following env: AppEnvironment) -> Bool {
            state.withLock { state in
                defer { state = State(file: Self.file(env), who: Self.who(env)) }
                return state.moved
            }
        }
    }

    func run() async throws {
        // `--verbose` (not BRADOS_LOG=debug or a `log` setting): one line an event.
        if verbose, env.settings.resolve("log").source == .flag { LogBootstrap.narrow(to: .info) }
        // Its own lines say when a service goes and comes back; a request's retries are the log's.
        var env = try self.env.reloaded(retryNotices: false)
        let hangups = Self.hangups(env)
        defer { Signals.hangupHandler.withLock { $0 = nil } }
        var notifications = try Notifications(env, notify: notify)
        await notifications.notifier?.probe()
        var seen = Stamp(env, hangups)
        let signIns = SignIns(env)
        let marks = NewsMarks()
        // What was said of a trouble stands across restarts (a host still down is not said again).
        let alerting = Mutex<Notifier?>(notifications.notifier)
        let output = env.output
        let reports = WatchReports(say: { output.notice($0) }, alert: { summary, body in
            let notifier = alerting.withLock { $0 }
            Task { await notifier?.alert(summary: summary, body: body) }
        })
        while true {
            try await watchOnce(env, notifier: notifications.notifier, marks: marks, reports: reports,
                                until: { [seen, env] in Stamp(env, hangups) != seen || signIns.changed(env, waiting: reports.awaitsSignIn) })
            let before = seen
            seen = Stamp(env, hangups)
            let next: AppEnvironment
            do { next = try env.reloaded() } catch {
                env.output.notice("sync --watch: the changed configuration cannot be used (\(error.summaryText)); the watch goes on as it was.")
                continue
            }
            if before.config != seen.config { reports.configurationChanged() }
            let moved = signIns.tookMove(following: next)
            // A sign-in again to the account a service waited for is said by the reports ("signed in again").
            if before != seen || moved || next.profile.name != env.profile.name {
                env.output.notice("sync --watch: \(Self.changes(from: env, to: next, signIns: moved)); taken now.")
            }
            if next.profile.name != env.profile.name { try await next.lock(next.profile.name, .shared) }
            env = next
            if let kept = try? Notifications(env, notify: notify), kept != notifications {
                notifications = kept
                alerting.withLock { $0 = kept.notifier }
                await notifications.notifier?.probe()
            }
        }
    }

    /// SIGHUP reads the configuration again when nobody is at a terminal (a service manager's
    /// `systemctl reload`); at a terminal it ends the watch as it ends any command (the
    /// terminal was closed). Counted, and the count looked at with the config file.
    static func hangups(_ env: AppEnvironment) -> Hangups {
        let hangups = Hangups()
        guard !env.io.isInputTerminal else { return hangups }
        Signals.hangupHandler.withLock { $0 = { hangups.count.withLock { $0 += 1 } } }
        return hangups
    }

    /// How many SIGHUPs came (``hangups(_:)``).
    final class Hangups: Sendable {
        let count = Mutex(0)
    }

    /// What changed between two environments, in a few words: the settings by name (never
    /// their values: a log is read by others), the sign-ins, the profile.
    static func changes(from old: AppEnvironment, to new: AppEnvironment, signIns: Bool) -> String {
        let before = Dictionary(old.settings.all().map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        var parts: [String] = []
        // A service's `server.NAME` that only follows `server` is not named again.
        let moved = new.settings.all().filter { setting in
            guard before[setting.key] != .some(setting.value) else { return false }
            guard setting.key.hasPrefix("server.") else { return true }
            return old.settings.file.values[setting.key] != new.settings.file.values[setting.key] || setting.source == .environment
        }.map(\.key)
        if !moved.isEmpty { parts.append("the configuration changed (\(moved.joined(separator: ", ")))") }
        if old.profile.name != new.profile.name { parts.append("it follows profile '\(new.profile.name.rawValue)' now") }
        if signIns || old.profile.name != new.profile.name { parts.append("the sign-ins changed") }
        return parts.isEmpty ? "the configuration was read again (nothing it uses changed)" : parts.joined(separator: "; ")
    }

    /// Every domain once, until `changed` says the configuration moved (or SIGHUP).
    /// - Throws: `CancellationError`.
    func watchOnce(_ env: AppEnvironment, notifier: Notifier?, marks: NewsMarks, reports: WatchReports,
                   until changed: @escaping @Sendable () -> Bool) async throws {
        let logger = env.logger
        let names = domains
        let plugins = try names.map { try $0.map { try env.plugin(named: $0) } } ?? env.plugins
        keepCalendar(env, changed: nil)
        let restart = self.restart, configCheck = self.configCheck, options = self.options
        try await withThrowingTaskGroup(of: Bool.self) { group in
            // The configuration: when it moved, every domain starts again with it.
            group.addTask {
                while !changed() { try await Task.sleep(for: configCheck) }
                return true
            }
            var checks: [NewsCheck] = []
            for plugin in plugins.compactMap({ $0 as? any Syncs }) {
                let news = notifier.flatMap { notifier in (plugin as? any Notifies).map { NewsCheck(plugin: $0, env: env, notifier: notifier, marks: marks) } }
                if let news {
                    news.baseline()
                    checks.append(news)
                    group.addTask { await news.run(); return false }
                }
                let live = plugin as? any FollowsLive
                let tell: @Sendable (WatchEvent) -> Void = { event in
                    switch event {
                    case let .changed(line):
                        reports.worked(plugin.name)
                        OperationLog.event("\(plugin.name).watch", line, logger: logger)
                        news?.changed()
                    case let .paused(reason, after, unreachable):
                        reports.paused(plugin.name, unreachable: unreachable)
                        OperationLog.event("\(plugin.name).watch", LiveConnection.paused(reason, after: after), logger: logger)
                    }
                }
                group.addTask {
                    while true {
                        let wait: Duration
                        do {
                            if let live {
                                try await live.watch(env, tell: tell)
                                return false
                            }
                            switch try await DomainSync.run(plugin, env: env, options: options) {
                            case let .synced(summary):
                                reports.worked(plugin.name)
                                if let summary { tell(.changed(summary)) } else { news?.changed() }
                                keepCalendar(env, changed: plugin.name)
                            // Skipped, as by `sync`; looked at again on the domain's interval, so a
                            // sign-in meanwhile starts it.
                            case .notSignedIn: OperationLog.event("\(plugin.name).watch", "skipped, not signed in", logger: logger)
                            }
                            wait = plugin.watchInterval
                        } catch is CancellationError {
                            throw CancellationError()
                        } catch let error as AuthError where error.isNeverSignedIn {
                            // A live feed that finds no sign-in: looked at again on the interval.
                            OperationLog.event("\(plugin.name).watch", "skipped, not signed in", logger: logger)
                            wait = plugin.watchInterval
                        } catch {
                            wait = Self.wait(after: error, interval: plugin.watchInterval, restart: restart)
                            reports.failed(plugin.name, error, retrying: wait)
                            OperationLog.event("\(plugin.name).watch", "failed: \(error.logText); again in \(Format.duration(wait))", logger: logger)
                        }
                        try await Task.sleep(for: wait)
                    }
                }
            }
            // What another brados wrote into a domain's cache is news too, looked at as the config is.
            if checks.contains(where: { $0.plugin.newsStamp(env) != nil }) {
                let watched = checks
                group.addTask {
                    var stamps = watched.map { $0.plugin.newsStamp(env) }
                    while true {
                        try await Task.sleep(for: configCheck)
                        for (index, check) in watched.enumerated() {
                            let now = check.plugin.newsStamp(env)
                            if now != stamps[index] { check.changed() }
                            stamps[index] = now
                        }
                    }
                }
            }
            while let ended = try await group.next() {
                if ended {
                    group.cancelAll()
                    return
                }
            }
        }
    }
}

extension SyncWatch {
    /// How long a domain that failed with `error` waits before it is tried again: `restart`,
    /// or the server's `Retry-After` when longer (a rate limit is waited out, as every command
    /// waits it out); a session to sign in to again is tried quietly on the domain's
    /// `interval` (a sign-in restarts the watch at once).
    static func wait(after error: any Error, interval: Duration, restart: Duration) -> Duration {
        if case .signIn = WatchReports.trouble(error) { return max(interval, restart) }
        return max(restart, (error as? NetworkError)?.retryAfter ?? .zero)
    }
}

/// Whether and how the watch notifies: kept across a reload while the settings stay, so a
/// notification on screen is still the one a later one replaces.
struct Notifications: Equatable {
    var detail: NotificationDetail?
    var notifier: Notifier?

    /// - Throws: ``ConfigError`` for a `watch.notify` or `notify.detail` that is not valid.
    init(_ env: AppEnvironment, notify: Bool) throws {
        guard try notify || parseBool(env.settings.validated(NotificationDetail.notifyKey.name)) == true else { return }
        let detail = NotificationDetail(rawValue: try env.settings.validated(NotificationDetail.configKey.name)) ?? .full
        let output = env.output
        self.detail = detail
        notifier = Notifier(detail: detail, sender: SessionBusNotifications(environment: env.io.environment),
                            warn: { output.notice("sync --watch --notify: \($0)") })
    }

    static func == (lhs: Notifications, rhs: Notifications) -> Bool { lhs.detail == rhs.detail }
}

/// ``SyncWatch``'s lock around writing `calendar.file` (and whether it said the file is another profile's).
final class CalendarWriter: Sendable {
    let lock = Mutex(false)
}

/// Each domain's news mark (``Notifies/news(_:since:)``), kept across the watch's restarts
/// after a configuration change: what came meanwhile is still news.
final class NewsMarks: Sendable {
    private let marks = Mutex<[String: String]>([:])
    subscript(_ domain: String) -> String? {
        get { marks.withLock { $0[domain] } }
        set { marks.withLock { $0[domain] = newValue } }
    }
}

/// One domain's news for `sync --watch --notify`: after each change the watch sees, the
/// domain is asked what changed since the mark kept for it. Changes that come while it asks
/// are one more ask, however many they are (a burst of 1,000 is one or two reads).
final class NewsCheck: Sendable {
    let plugin: any Notifies
    let env: AppEnvironment
    let notifier: Notifier
    let marks: NewsMarks
    /// `notify.own-changes`: this profile's own changes are news too.
    let tellsOwnChanges: Bool
    private let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation

    init(plugin: any Notifies, env: AppEnvironment, notifier: Notifier, marks: NewsMarks) {
        self.plugin = plugin
        self.env = env
        self.notifier = notifier
        self.marks = marks
        tellsOwnChanges = env.settings.resolve(NotificationDetail.ownChangesKey.name).value.flatMap(parseBool) ?? false
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// What is cached when the watch starts is the mark, not news (after a restart the mark
    /// kept stands, and what changed meanwhile is asked for at once).
    func baseline() {
        if marks[plugin.name] != nil { return changed() }
        marks[plugin.name] = try? plugin.news(env, since: nil).mark
    }

    /// Something of the domain changed.
    func changed() { signal.yield() }

    /// Asks after each change until the watch is cancelled.
    func run() async {
        for await _ in signals {
            do {
                let report = try plugin.news(env, since: marks[plugin.name])
                marks[plugin.name] = report.mark
                await notifier.add(tellsOwnChanges ? report.news : report.news.filter { !$0.ownChange })
            } catch {
                OperationLog.event("\(plugin.name).watch", "could not read what changed: \(error.logText)", logger: env.logger)
            }
        }
    }
}
