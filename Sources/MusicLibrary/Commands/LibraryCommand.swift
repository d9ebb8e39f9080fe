import ArgumentParser
import BradOSCore
import BradOSTerminal
import Foundation

/// `brados library`: a Plex music client.
public struct LibraryCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "Plex music library: instant from a snapshot, artwork cached on disk.",
        discussion: """
        Albums and collections render from the last snapshot at once, then refresh from Plex \
        (a progress bar on a terminal; in scripts the refresh runs in the background). Artwork \
        is cached at 1024 px (lists) and 2048 px (detail), LRU by last access, 250 MB by default.
        Examples:
          brados library albums --prefetch       the albums, then the first screen's artwork
          brados library show 1001               detail, with the 2048 px artwork cached
          brados library artwork 1001 --size 1024 -o cover.png
          brados library cache stats
          brados config set library.artwork-cap 500MB
        """,
        subcommands: [Albums.self, Collections.self, Sections.self, Show.self, Artwork.self, Prefetch.self, Servers.self, Use.self, Cache.self, Revalidate.self],
        defaultSubcommand: Albums.self)

    public init() {}
}

/// The first screen of a list: visible rows plus one, times the columns.
struct ScreenOptions: ParsableArguments {
    @Option(help: "Rows on screen (default: the terminal's height, else 24).") var rows: Int?
    @Option(help: "Albums per row (default: 1, a list).") var columns: Int?

    func validate() throws {
        if let rows, !(1...500).contains(rows) { throw ValidationError("--rows must be 1 to 500.") }
        if let columns, !(1...50).contains(columns) { throw ValidationError("--columns must be 1 to 50.") }
    }

    func firstScreen(_ io: any TerminalIO) -> Int {
        let visible = rows ?? max(1, (io.terminalSize?.rows ?? 24) - 3)
        return (visible + 1) * (columns ?? 1)
    }

    var arguments: [String] {
        (rows.map { ["--rows", "\($0)"] } ?? []) + (columns.map { ["--columns", "\($0)"] } ?? [])
    }
}

extension ArtworkCache.Size: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: Int(argument) ?? 0) }
    public static var allValueStrings: [String] { allCases.map { "\($0.rawValue)" } }
}
