import ArgumentParser
import BradOSCore

extension LibraryCommand {
    /// Lists collections, or one collection's albums.
    public struct Collections: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "collections", 
            abstract: "List collections (from the snapshot first), or the albums of one.", discussion: "Examples:\n  brados library collections\n  brados library collections 2001")

        @Argument(help: "A collection's rating key: list its albums (live).") var collection: String?
        @Option(help: ArgumentHelp("A music section, by key or title (default: library.section, else the first music section).", valueName: "key|title"))
        var section: String?
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let store = try LibraryRepository.live(env)
            let renderer = LibraryRenderer(output: env.output)
            if let collection {
                let title = store.snapshot()?.collections.first { $0.ratingKey == collection }?.title ?? "Collection \(collection)"
                return try renderer.albumList(try await store.collectionAlbums(collection), title: title)
            }
            try await env.reader.show(try store.library(section: section, noun: "collections"), with: LibraryRenderer(output: env.output).collectionsView)
        }
    }
}
