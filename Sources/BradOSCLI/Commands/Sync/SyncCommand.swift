import ArgumentParser
import BradOSCalendar
import BradOSCore
import BradOSErrors
import BradOSNetworking
import BradOSNotifications
import BradOSStorage
import BradOSTerminal
import Foundation

/// `brados sync`: the terminal's background refresh, for cron or a systemd user timer.
public struct SyncCommand: EnvironmentCommand {
    public static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "sync",
        abstract: "Refresh every domain's cache by its policy and send queued changes; quiet unless something fails.",
        discussion: Composition.current.helpText("sync") { discussion(Composition.current.plugins) }) }

    /// The help text: what each domain does, and the flags domains add.
    static func discussion(_ plugins: [any DomainPlugin]) -> String {
        var lines: [String] = []
        let described = plugins.compactMap { $0 as? any Syncs }
        if !described.isEmpty {
            lines.append("What each domain does:")
            lines += HelpExamples.columns(described.map { ($0.name, $0.syncDescription) })
        }
        let flags: [SyncFlag] = described.flatMap(\.syncFlags)
        if !flags.isEmpty {
            lines.append("Flags the domains add:")
            lines += HelpExamples.columns(flags.map { ("--" + $0.name, $0.help) })
        }
        lines.append("Prints nothing when everything worked (use --verbose or --json to see what it did); each failure is reported on stderr and the exit code is the first failure's.")
        lines.append("A domain whose service this profile never signed in to is skipped, not failed (--verbose and --json say so); an expired or revoked session fails (exit 4).")
        lines.append("--watch keeps running instead, until Ctrl-C or SIGTERM (--verbose says what each domain does): domains that can follow their service live do (no polling; after any gap they catch up first), the others sync every 5 minutes as their policy says.")
        lines.append("With calendar.file set, sync (and --watch, on each change) keeps that .ics current (`brados calendar --help`).")
        let notifying = plugins.compactMap { $0 as? any Notifies }
        if !notifying.isEmpty {
            lines.append("What --watch --notify tells of on the desktop (notify.detail: full, summary or none):")
            lines += HelpExamples.columns(notifying.map { ($0.name, $0.notifyDescription) })
            lines.append("A burst is one notification (\"50 new messages\"), one a domain every 5 s at most, replacing its own; with no desktop session: one notice, and the watch goes on (docs/calendar.md).")
        }
        let live = plugins.compactMap { $0 as? any FollowsLive }
        if !live.isEmpty {
            lines.append("What each domain follows with --watch:")
            lines += HelpExamples.columns(live.map { ($0.name, $0.watchDescription) })
        }
        lines.append("Example: systemctl --user enable --now brados-sync.timer   (installed by the package and make install: every 30 minutes)")
        lines.append("Example: systemctl --user enable --now brados-watch.service   (sync --watch, instead of the timer)")
        return lines.joined(separator: "\n")
    }

    @Option(help: ArgumentHelp("Only these domains (comma-separated).", valueName: "a,b")) var domains: String?
    @Flag(help: "Keep running: follow the services live where they can push changes, sync the rest on their interval.") var watch = false
    @Flag(help: "With --watch: desktop notifications of what arrives (setting watch.notify; notify.detail says how much they show).") var notify = false
    /// Flags the domains add (see ``DomainPlugin/syncFlags``), checked in ``validate()``.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("Flags the domains add (listed above).", valueName: "domain-flag"),
              completion: .custom { _, _, _ in Composition.current.plugins.compactMap { $0 as? any Syncs }.flatMap(\.syncFlags).map { "--\($0.name)" } })
    var domainFlags: [String] = []
    @OptionGroup public var global: GlobalOptions
    public init() {}

    /// Checks that every extra argument is a flag a domain declared.
    /// - Throws: `ValidationError` for anything else.
    public func validate() throws {
        if notify, !watch { throw ValidationError("--notify goes with --watch: `brados sync --watch --notify`.") }
        _ = try Self.options(domainFlags, plugins: Composition.current.plugins)
    }

    /// The domains' flags given on the command line.
    /// - Throws: `ValidationError` for anything that is not a flag a domain declared.
    static func options(_ arguments: [String], plugins: [any DomainPlugin]) throws -> SyncOptions {
        let declared = Set(plugins.compactMap { $0 as? any Syncs }.flatMap(\.syncFlags).map(\.name))
        var flags: Set<String> = []
        for argument in arguments {
            guard argument.hasPrefix("--"), declared.contains(String(argument.dropFirst(2))) else {
                let known = declared.sorted().map { "--\($0)" }.joined(separator: ", ")
                throw ValidationError("Unknown option '\(argument)' for sync." + (known.isEmpty ? "" : " Domains add: \(known).") + " See `brados sync --help`.")
            }
            flags.insert(String(argument.dropFirst(2)))
        }
        return SyncOptions(flags: flags)
    }

    /// `--watch` under a service manager waits a back-off before a failure ends it (``WatchRestarts``).
    public func run() async throws {
        guard watch else { return try await runInProcess() }
        let started = Date()
        do { try await runInProcess() } catch where !(error is CancellationError) && !Task.isCancelled {
            await WatchRestarts.pause(started: started, environment: ProcessInfo.processInfo.environment, io: StandardIO())
            throw error
        }
    }

    /// Syncs each domain in turn; a domain's failure is reported and the others still run.
    /// - Throws: `ExitCode` with the first failure's code once every domain ran; ``ConfigError/unknownDomain(_:known:)``
    ///   for `--domains`; `ValidationError`; ``ConfigError``, ``StorageError`` (see ``AppEnvironment/live(_:access:)``).
    public func run(in env: AppEnvironment) async throws {
        var options = try Self.options(domainFlags, plugins: env.plugins)
        options.watching = watch
        let names = domains.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let plugins = try names.map { try $0.map { try env.plugin(named: $0) } } ?? env.plugins
        if watch {
            if env.isOffline { throw NetworkError.offlineMode }
            _ = try Notifications(env, notify: notify)  // a bad setting is the command's error, before anything runs
            var watching = SyncWatch(env: env, domains: names, options: options, verbose: global.verbose, notify: notify)
            // Seconds before a failed domain is tried again (tests: a server's outage in seconds, not minutes).
            if let seconds = env.io.environment["BRADOS_WATCH_RESTART"].flatMap(Double.init), seconds > 0 { watching.restart = .milliseconds(Int(seconds * 1000)) }
            return try await watching.run()
        }
        struct Outcome: Encodable {
            var domain: String
            var status: String
            @NullWhenAbsent var summary: String?
            @NullWhenAbsent var error: String?
            var seconds: Double
        }
        var outcomes: [Outcome] = []
        var firstFailure: (any Error)?
        for plugin in plugins {
            let started = ContinuousClock.now
            guard let syncing = plugin as? any Syncs else {
                outcomes.append(Outcome(domain: plugin.name, status: "skipped", seconds: 0))
                continue
            }
            do {
                switch try await DomainSync.run(syncing, env: env, options: options) {
                case let .synced(summary):
                    outcomes.append(Outcome(domain: plugin.name, status: summary == nil ? "skipped" : "ok", summary: summary,
                                            seconds: (ContinuousClock.now - started).seconds))
                case let .notSignedIn(signIn):
                    // A service this profile never signed in to (a coach project it does not use):
                    // nothing to sync, not a failure; the timer's journal stays quiet.
                    outcomes.append(Outcome(domain: plugin.name, status: "skipped", summary: "not signed in: \(signIn)",
                                            seconds: (ContinuousClock.now - started).seconds))
                }
            } catch {
                let text = (error as? any BradOSError)?.description ?? "\(error)"
                outcomes.append(Outcome(domain: plugin.name, status: "failed", error: text, seconds: (ContinuousClock.now - started).seconds))
                env.output.notice("sync \(plugin.name): \(text.replacingOccurrences(of: "\n", with: "\n  "))")
                firstFailure = firstFailure ?? error
            }
        }
        // The calendar a person subscribes to (`calendar.file`), from what the caches hold now.
        do { try CalendarFile.update(env) } catch let error as CalendarError {
            // Another profile's calendar: left as it is, and said; not this sync's failure.
            env.output.notice("sync calendar.file: \(error.description)")
        } catch {
            env.output.notice("sync calendar.file: \(error.summaryText)")
            firstFailure = firstFailure ?? error
        }
        if env.output.format == .json { try env.output.json(outcomes) }
        else if global.verbose {
            env.output.table(Table(headers: ["DOMAIN", "STATUS", "DETAIL"],
                                   rows: outcomes.map { [$0.domain, $0.status, $0.summary ?? $0.error?.split(separator: "\n").first.map(String.init) ?? ""] },
                                   keepWhole: [0, 1], wrapLast: true))
        }
        if let firstFailure { throw ExitCode(ExitStatus.code(for: firstFailure)) }
    }
}
