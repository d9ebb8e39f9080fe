import BradOSAuth
import BradOSCalendar
import BradOSCore
import BradOSErrors
import BradOSNotifications
import BradOSTerminal
import Foundation
import Synchronization

/// `brados sync --watch`: one long-running process that keeps every domain's cache fresh.
/// A domain that ``FollowsLive`` (the coach over Supabase Realtime, the library over Plex's
/// notifications) follows its service, catching up after every gap; the others that ``Syncs``
/// run their `sync` every ``Syncs/watchInterval``, their policy deciding what is fetched (a
/// domain that does neither has nothing to keep fresh). A domain that fails is reported and started again after `restart`; the
/// others go on. It ends only when cancelled (Ctrl-C, SIGTERM from systemd).
struct SyncWatch {
    let env: AppEnvironment
    let plugins: [any DomainPlugin]
    let options: SyncOptions
    /// `--verbose`: a line for what each domain does (a catch-up, a refresh, a reconnect): the
    /// operation lines (``OperationLog``, at info), not the debug log `--verbose` means elsewhere.
    let verbose: Bool
    var restart: Duration = .seconds(30)
    /// `--notify`: what the domains that ``Notifies`` find after each change goes here.
    var notifier: Notifier?
    /// One writer of `calendar.file` at a time (domains sync on their own tasks).
    let calendarWriter = CalendarWriter()

    /// Brings `calendar.file` up to date after `changed` (every domain when `nil`) synced; a
    /// failure is a notice, and the watch goes on.
    func keepCalendar(changed: String?) {
        calendarWriter.lock.withLock { _ in
            do { try CalendarFile.update(env, changed: changed.map { [$0] }) } catch {
                env.output.notice("sync --watch calendar.file: \(error.summaryText) (written again on the next change)")
            }
        }
    }

    func run() async throws {
        let output = env.output
        let logger = env.logger
        // `--verbose` (not BRADOS_LOG=debug or a `log` setting): one line an event.
        if verbose, env.settings.resolve("log").source == .flag { LogBootstrap.narrow(to: .info) }
        keepCalendar(changed: nil)
        await notifier?.probe()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for plugin in plugins.compactMap({ $0 as? any Syncs }) {
                let news = notifier.flatMap { notifier in (plugin as? any Notifies).map { NewsCheck(plugin: $0, env: env, notifier: notifier) } }
                if let news {
                    news.baseline()
                    group.addTask { await news.run() }
                }
                let tell: @Sendable (String) -> Void = { line in
                    // A live feed's lines name their domain ("coach: …"); the operation is the domain's watch.
                    let text = line.hasPrefix("\(plugin.name): ") ? String(line.dropFirst(plugin.name.count + 2)) : line
                    OperationLog.event("\(plugin.name).watch", text, logger: logger)
                    news?.changed()
                }
                let live = plugin as? any FollowsLive
                group.addTask {
                    while true {
                        do {
                            if let live {
                                try await live.watch(env, tell: tell)
                                return
                            }
                            switch try await DomainSync.run(plugin, env: env, options: options) {
                            case let .synced(summary):
                                if let summary { tell(summary) } else { news?.changed() }
                                keepCalendar(changed: plugin.name)
                            // Skipped, as by `sync`; looked at again on the domain's interval, so a
                            // sign-in meanwhile starts it.
                            case .notSignedIn: tell("skipped, not signed in")
                            }
                            try await Task.sleep(for: plugin.watchInterval)
                            continue
                        } catch is CancellationError {
                            throw CancellationError()
                        } catch let error as AuthError where error.isNeverSignedIn {
                            // A live feed that finds no sign-in: looked at again on the interval.
                            tell("skipped, not signed in")
                            try await Task.sleep(for: plugin.watchInterval)
                            continue
                        } catch {
                            let text = (error as? any BradOSError)?.summary ?? "\(error)"
                            output.notice("sync --watch \(plugin.name): \(text) (trying again in \(restart))")
                        }
                        try await Task.sleep(for: restart)
                    }
                }
            }
            while try await group.next() != nil {}
        }
    }
}

/// ``SyncWatch``'s lock around writing `calendar.file`.
final class CalendarWriter: Sendable {
    let lock = Mutex(())
}

/// One domain's news for `sync --watch --notify`: after each change the watch sees, the
/// domain is asked what changed since the mark kept here. Changes that come while it asks
/// are one more ask, however many they are (a burst of 1,000 is one or two reads).
final class NewsCheck: Sendable {
    let plugin: any Notifies
    let env: AppEnvironment
    let notifier: Notifier
    private let mark = Mutex<String?>(nil)
    private let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation

    init(plugin: any Notifies, env: AppEnvironment, notifier: Notifier) {
        self.plugin = plugin
        self.env = env
        self.notifier = notifier
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// What is cached when the watch starts is the mark, not news.
    func baseline() {
        let now = try? plugin.news(env, since: nil).mark
        mark.withLock { $0 = now }
    }

    /// Something of the domain changed.
    func changed() { signal.yield() }

    /// Asks after each change until the watch is cancelled.
    func run() async {
        for await _ in signals {
            do {
                let since = mark.withLock { $0 }
                let report = try plugin.news(env, since: since)
                mark.withLock { $0 = report.mark }
                await notifier.add(report.news)
            } catch {
                OperationLog.event("\(plugin.name).watch", "could not read what changed: \(error.logText)", logger: env.logger)
            }
        }
    }
}
