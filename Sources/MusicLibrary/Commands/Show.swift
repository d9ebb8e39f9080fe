import ArgumentParser
import BradOSCore
import BradOSErrors
import BradOSPictures
import Foundation

extension LibraryCommand {
    /// One album or collection in detail, with its 2048 px artwork cached.
    public struct Show: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "show", abstract: "Show an album or a collection in detail with its cover (and cache its 2048 px artwork).", discussion: """
            On a terminal the cover is drawn beside the details (above them on a narrow \
            terminal), sized to the terminal: with kitty's graphics protocol, iTerm2's inline \
            images or sixel when the terminal shows them, else with Unicode blocks. `brados \
            doctor` says which mode was chosen and why; --art (or config display.art) chooses. \
            No picture is drawn through a pipe, with --json or with --art none; an album \
            without a usable cover gets a placeholder. A collection's key shows the collection \
            and its cover (`brados library collections` lists them).
            Examples:
              brados library show 1006
              brados library show 5000
              brados library show 1006 --art symbols
              brados library show 1006 --art none
            """)
        @Argument(help: "The album's (or collection's) rating key.", completion: .custom { _, _, _ in LibraryPlugin.cachedRatingKeys() }) var ratingKey: String
        @OptionGroup var art: ArtOptions
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try LibraryRepository.live(env)
            let choice = try env.art(art)
            if choice.drawing != nil { ArtPainter.prepare() }
            // The details kept from the last show at once (refreshed behind); shown below, with the cover.
            var source = DataSource.network
            let value = try await env.reader.show(repository.detail(ratingKey)) { _, shownFrom in source = shownFrom }.shown
            let found = (value: value, source: source)
            let album = found.value.item
            let area = env.artArea
            let cover = choice.drawing == nil ? nil : CoverArt(choice: choice, artwork: repository.artwork, logger: env.logger, notices: ArtNotices(output: env.output))
            // The 1024 px copy (cached by lists and prefetch) when it has pixels enough: a
            // quarter of the decoding.
            let small = cover.flatMap { $0.sizeNeeded(for: CoverArt.detailLayout(area: area).box) == .list }.flatMap {
                $0 ? repository.artwork.cached(album, size: .list) : nil
            }
            var artwork: URL?
            var detail: Data?
            do {
                // The 2048 px copy is cached for the detail view, and read only to be drawn.
                if album.thumb != nil, cover == nil || small != nil, repository.artwork.isCached(album, size: .detail) {
                    artwork = try repository.artwork.file(for: album, size: .detail)
                } else {
                    let image = try await repository.artwork.artwork(for: album, size: .detail)
                    detail = image.placeholder ? nil : image.data
                    artwork = try repository.artwork.file(for: album, size: .detail)
                }
            } catch let error as any BradOSError {
                // The detail is what was asked for; missing artwork is a note, not a failure.
                env.output.notice("no artwork: \(error.summary)")
                artwork = nil
            }
            let drawn = cover.map { (art: $0, data: small ?? detail, size: small != nil ? ArtworkCache.Size.list : .detail, area: area) }
            try LibraryRenderer(output: env.output).detail(found.value, source: found.source, artwork: artwork, cover: drawn)
        }
    }
}
