import BradOSAuth
import BradOSCore
import BradOSErrors
import BradOSTerminal
import Foundation

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

    func run() async throws {
        let output = env.output
        let logger = env.logger
        // `--verbose` (not BRADOS_LOG=debug or a `log` setting): one line an event.
        if verbose, env.settings.resolve("log").source == .flag { LogBootstrap.narrow(to: .info) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for plugin in plugins.compactMap({ $0 as? any Syncs }) {
                let tell: @Sendable (String) -> Void = { line in
                    // A live feed's lines name their domain ("coach: …"); the operation is the domain's watch.
                    let text = line.hasPrefix("\(plugin.name): ") ? String(line.dropFirst(plugin.name.count + 2)) : line
                    OperationLog.event("\(plugin.name).watch", text, logger: logger)
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
                            case let .synced(summary): if let summary { tell(summary) }
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
