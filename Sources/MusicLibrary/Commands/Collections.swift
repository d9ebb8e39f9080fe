import ArgumentParser
import BradOSCore
import BradOSPictures

extension LibraryCommand {
    /// Lists collections, or one collection's albums.
    public struct Collections: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "collections",
            abstract: "List collections (from the snapshot first), or the albums of one.", discussion: """
            --covers draws the first screen's collection covers in a grid, titles under them, \
            fetching their 1024 px artwork first (kitty, iTerm2, sixel or Unicode blocks: see \
            --art); with a collection, the covers of its albums. Through a pipe or with --json \
            the listing is printed instead. `brados library show KEY` shows one collection \
            with its cover.
            Examples:
              brados library collections
              brados library collections --covers
              brados library collections 5000
              brados library collections 5000 --covers
            """)

        @Argument(help: "A collection's rating key: list its albums (live).") var collection: String?
        @Option(help: ArgumentHelp("A music section, by key or title (default: library.section, else the first music section).", valueName: "key|title"))
        var section: String?
        @Flag(help: "Draw the first screen's covers in a grid, titles under them.") var covers = false
        @OptionGroup var art: ArtOptions
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try LibraryRepository.live(env)
            let renderer = LibraryRenderer(output: env.output)
            let grid = covers ? try CoverGrid(env: env, repository: repository, art: art) : nil
            if let collection {
                let title = repository.snapshot()?.collections.first { $0.ratingKey == collection }?.title ?? "Collection \(collection)"
                let albums = try await repository.collectionAlbums(collection)
                if let grid {
                    let shown = Array(albums.prefix(grid.layout.count))
                    return await grid.draw(shown, heading: env.output.styled(title, .bold) + " · \(shown.count) of \(albums.count) albums")
                }
                return try renderer.albumList(albums, title: title)
            }
            if let grid {
                let found = try await env.reader.answer(try repository.library(section: section, noun: "collections"))
                let shown = Array(found.value.collections.prefix(grid.layout.count))
                let range = shown.isEmpty ? "no collections" : "collections 1–\(shown.count) of \(found.value.collections.count)"
                let heading = env.output.styled(range, .bold)
                    + " · \(found.value.sectionTitle) · " + env.output.styled(found.source.origin, .dim)
                return await grid.draw(shown, heading: heading)
            }
            try await env.reader.show(try repository.library(section: section, noun: "collections"), with: renderer.collectionsView)
        }
    }
}
