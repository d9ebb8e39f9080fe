import BradOSCore
import Foundation

/// `brados sync --watch`: one long-running process that keeps every domain's cache fresh.
/// A domain with a live feed (``DomainPlugin/watch(_:tell:)``: the coach over Supabase
/// Realtime, the library over Plex's notifications) follows it, catching up after every gap;
/// the others run their `sync` every ``DomainPlugin/watchInterval``, their policy deciding
/// what is fetched. A domain that fails is reported and started again after `restart`; the
/// others go on. It ends only when cancelled (Ctrl-C, SIGTERM from systemd).
struct SyncWatch {
    let env: AppEnvironment
    let plugins: [any DomainPlugin]
    let options: SyncOptions
    /// `--verbose`: a line for what each domain does (a catch-up, a refresh, a reconnect).
    let verbose: Bool
    var restart: Duration = .seconds(30)

    func run() async throws {
        let output = env.output
        let verbose = verbose
        let tell: @Sendable (String) -> Void = { line in if verbose { output.notice("sync --watch " + line) } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for plugin in plugins {
                let live = plugin.watch(env, tell: tell)
                group.addTask {
                    while true {
                        do {
                            if let live {
                                try await live()
                                return
                            }
                            if let summary = try await plugin.sync(env, options: options) { tell("\(plugin.name): \(summary)") }
                            try await Task.sleep(for: plugin.watchInterval)
                            continue
                        } catch is CancellationError {
                            throw CancellationError()
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
