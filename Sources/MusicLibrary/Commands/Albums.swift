import ArgumentParser
import BradOSCore
import BradOSPictures
import Foundation

extension LibraryCommand {
    /// Lists albums: the snapshot first, then the live library.
    public struct Albums: EnvironmentCommand {
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
              brados library albums --covers
            --covers draws the first screen's covers in a grid, titles under them, fetching \
            their 1024 px artwork as --prefetch does (kitty, iTerm2, sixel or Unicode blocks: \
            see --art). Through a pipe or with --json the listing is printed instead.
            On a terminal the listing goes through your pager (--no-pager prints it straight); \
            --prefetch then fetches in the background.
            """)

        @Option(help: ArgumentHelp("A music section, by key or title (default: library.section, else the first music section).", valueName: "key|title"))
        var section: String?
        @Flag(help: "Ignore the snapshot and ask Plex.") var refresh = false
        @Flag(help: "Download every album again now, instead of what changed (implies --refresh).") var full = false
        @Option(help: ArgumentHelp("Show at most this many albums.", valueName: "n")) var limit: Int?
        @Option(help: ArgumentHelp("Skip this many albums first (in the listing's order).", valueName: "n")) var offset: Int = 0
        @Flag(help: "Then fetch the first screen's 1024 px artwork (output never waits on it).") var prefetch = false
        @Flag(help: "Draw the first screen's covers in a grid, titles under them.") var covers = false
        @OptionGroup var art: ArtOptions
        @OptionGroup var screen: ScreenOptions
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
            if offset < 0 { throw ValidationError("--offset must be 0 or more.") }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            var repository = try LibraryRepository.live(env)
            if prefetch || covers { repository.afterRefresh = nil }  // they fetch the first screen themselves
            if covers, try await drawCovers(env: env, repository: repository) { return }
            let paged = env.pageOutput()
            let view = LibraryRenderer(output: env.output).albumsView(page: AlbumPage(limit: limit, offset: offset))
            let shown = try await env.reader.show(try repository.library(section: section, full: full), with: view, refresh: refresh || full).shown
            guard prefetch, !env.isOffline else { return }
            let firstScreen = try shown.albums(limit: min(screen.firstScreen(env.io), limit ?? .max), offset: offset)
            // Progress drawn after the listing would land on the pager's screen: a paged listing prefetches in the background.
            if env.isInteractive, !paged {
                try await Prefetch.prefetch(firstScreen, repository: repository, env: env)
            } else {
                try? env.startInBackground(["library", "prefetch", "--background"] + screen.arguments + (section.map { ["--section", $0] } ?? []))
            }
        }

        /// `--covers`: the first screen's covers in a grid; `false` when no picture can be
        /// drawn here (a pipe, `--json`, `--art none`), and the listing is printed instead.
        func drawCovers(env: AppEnvironment, repository: LibraryRepository) async throws -> Bool {
            guard let grid = try CoverGrid(env: env, repository: repository, art: art) else { return false }
            let found = try await env.reader.answer(try repository.library(section: section, full: full), refresh: refresh || full)
            let albums = try found.value.albums(limit: min(grid.layout.count, limit ?? .max), offset: offset)
            let range = albums.isEmpty ? "no albums" : "albums \(offset + 1)–\(offset + albums.count) of \(found.value.albumCount)"
            await grid.draw(albums, heading: env.output.styled(range, .bold) + " · \(found.value.sectionTitle) · " + env.output.styled(found.source.origin, .dim))
            return true
        }
    }
}
