import BradOSCore
import BradOSPictures
import BradOSTerminal
import Foundation

/// `--covers` of `library albums` and `library collections`: the first screen's covers in a
/// grid, titles under them, their 1024 px artwork fetched first (progress on the terminal,
/// never offline).
struct CoverGrid {
    let env: AppEnvironment
    let repository: LibraryRepository
    let choice: ArtChoice

    /// `nil`, after saying why, when no picture can be drawn here (a pipe, `--json`, `--art
    /// none`): the command prints its listing instead.
    /// - Throws: ``ConfigError`` for an invalid `display.art`.
    init?(env: AppEnvironment, repository: LibraryRepository, art: ArtOptions) throws {
        let choice = try env.art(art)
        guard choice.drawing != nil else {
            if env.output.format == .human { env.output.notice("no covers: \(choice.reason); the listing instead.") }
            return nil
        }
        self.env = env
        self.repository = repository
        self.choice = choice
    }

    /// How many covers the first screen holds, and how many a row.
    var layout: (perRow: Int, count: Int) { CoverArt.firstScreen(area: env.artArea, choice: choice) }

    /// Draws `items` under `heading` (a line that says what they are and where they came from).
    func draw(_ items: [any ArtworkItem], heading: String) async {
        if !env.isOffline, items.contains(where: { $0.thumb != nil }) {
            let indicator = Spinner(io: env.io, message: "fetching covers…")
            _ = try? await repository.artwork.prefetch(items) { done, total in indicator.update(done: done, total: total) }
            indicator.stop()
        }
        var drawn: [(album: any ArtworkItem, data: Data?)] = []
        for item in items {
            let image = try? await repository.artwork.artwork(for: item, size: .list)
            drawn.append((item, image.flatMap { $0.placeholder ? nil : $0.data }))
        }
        env.output.line(heading)
        env.output.picture(CoverArt(choice: choice, artwork: repository.artwork, logger: env.logger, notices: ArtNotices(output: env.output))
            .grid(drawn, perRow: layout.perRow))
    }
}
