import ArgumentParser
import BradOSCore
import Foundation

extension LibraryCommand {
    /// One album in detail, with its 2048 px artwork cached.
    public struct Show: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "show", abstract: "Show an album in detail (and cache its 2048 px artwork).", discussion: "Examples:\n  brados library show 1006")
        @Argument(help: "The album's rating key.", completion: .custom { _, _, _ in LibraryPlugin.cachedRatingKeys() }) var ratingKey: String
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try LibraryStore.live(env)
            let found = try await env.reader.answer(store.detail(ratingKey))
            var artwork: URL?
            do {
                _ = try await store.artwork.artwork(for: found.value.album, size: .detail)
                artwork = try store.artwork.file(for: found.value.album, size: .detail)
            } catch let error as any BradOSError {
                // The detail is what was asked for; missing artwork is a note, not a failure.
                env.output.notice("no artwork: \(error.summary)")
                artwork = nil
            }
            try LibraryRenderer(output: env.output).detail(found.value, source: found.source, artwork: artwork)
        }
    }
}
