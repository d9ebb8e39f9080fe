import ArgumentParser
import BradOSCore
import Foundation

extension LibraryCommand {
    /// Lists albums: the snapshot first, then the live library.
    public struct Albums: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "albums", abstract: "List albums (from the snapshot first, then refreshed live).", discussion: "Examples:\n  brados library albums\n  brados library albums --prefetch\n  brados library albums --section \"Live Recordings\" --json")

        @Option(help: ArgumentHelp("A music section, by key or title (default: library.section, else the first music section).", valueName: "key|title"))
        var section: String?
        @Flag(help: "Ignore the snapshot and ask Plex.") var refresh = false
        @Flag(help: "Then fetch the first screen's 1024 px artwork (output never waits on it).") var prefetch = false
        @OptionGroup var screen: ScreenOptions
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try LibraryStore.live(env)
            let renderer = LibraryRenderer(output: env.output)
            let interactive = env.io.isOutputTerminal && env.output.format == .human
            let section = self.section
            var shown: LibrarySnapshot?
            let flow = CachedRead<LibrarySnapshot>(
                policy: try LibraryPlugin.cachePolicy(env), mode: interactive ? .interactive : .script, offline: env.isOffline,
                noun: "albums", io: env.io, now: env.now,
                fetch: { progress in try await store.refresh(section: section, progress: progress) },
                render: { snapshot, source in
                    shown = snapshot
                    try renderer.albums(snapshot, source: source)
                },
                rerenderIfChanged: { old, new in
                    shown = new
                    return try renderer.rerenderAlbums(old: old, new: new)
                },
                notice: env.output.notice,
                startBackgroundRefresh: { try DetachedProcess.spawn(arguments: Revalidate.arguments(env, section: section)) },
                refreshStamp: .of(domain: LibraryPlugin.domainName, in: env.profile))
            try await flow.run(store.cached(section: section), refresh: refresh)
            guard prefetch, !env.isOffline, let shown else { return }
            let firstScreen = Array(shown.albums.prefix(screen.firstScreen(env.io)))
            if interactive {
                try await Prefetch.prefetch(firstScreen, store: store, env: env)
            } else {
                var arguments = ["library", "prefetch", "--profile", env.profile.name.rawValue] + screen.arguments
                if let section { arguments += ["--section", section] }
                if let server = env.settings.flags.server { arguments += ["--server", server] }
                try? DetachedProcess.spawn(arguments: arguments)
            }
        }
    }
}
