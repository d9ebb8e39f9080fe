import ArgumentParser
import BradOSCore
import Foundation

extension LibraryCommand {
    /// Lists albums: the snapshot first, then the live library.
    public struct Albums: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "albums", abstract: "List albums (from the snapshot first, then refreshed live).", discussion: """
            A refresh asks Plex whether the section changed since the snapshot (one request), \
            then only for the albums updated since; --full downloads every album again.
            The snapshot is read in part: --limit and --offset read one page of it, and a \
            whole listing (table or --json) is printed as it is read.
            Examples:
              brados library albums
              brados library albums --limit 50
              brados library albums --limit 50 --offset 50
              brados library albums --prefetch
              brados library albums --refresh --full
              brados library albums --section "Live Recordings" --json
            """)

        @Option(help: ArgumentHelp("A music section, by key or title (default: library.section, else the first music section).", valueName: "key|title"))
        var section: String?
        @Flag(help: "Ignore the snapshot and ask Plex.") var refresh = false
        @Flag(help: "Download every album again now, instead of what changed (implies --refresh).") var full = false
        @Option(help: ArgumentHelp("Show at most this many albums.", valueName: "n")) var limit: Int?
        @Option(help: ArgumentHelp("Skip this many albums first (in the listing's order).", valueName: "n")) var offset: Int = 0
        @Flag(help: "Then fetch the first screen's 1024 px artwork (output never waits on it).") var prefetch = false
        @OptionGroup var screen: ScreenOptions
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
            if offset < 0 { throw ValidationError("--offset must be 0 or more.") }
        }

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try LibraryStore.live(env)
            let view = LibraryRenderer(output: env.output).albumsView(page: AlbumPage(limit: limit, offset: offset))
            let shown = try await env.reader.show(try store.library(section: section, full: full), with: view, refresh: refresh || full).shown
            guard prefetch, !env.isOffline else { return }
            let firstScreen = try shown.albums(limit: min(screen.firstScreen(env.io), limit ?? .max), offset: offset)
            if env.isInteractive {
                try await Prefetch.prefetch(firstScreen, store: store, env: env)
            } else {
                try? env.startInBackground(["library", "prefetch"] + screen.arguments + (section.map { ["--section", $0] } ?? []))
            }
        }
    }
}
