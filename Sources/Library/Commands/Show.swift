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
            let found = try await store.detail(ratingKey, offline: env.isOffline, notice: env.output.notice)
            var artwork: URL?
            do {
                _ = try await store.artwork.artwork(for: found.detail.album, size: .detail)
                artwork = try store.artwork.file(for: found.detail.album, size: .detail)
            } catch let error as any BradOSError {
                // The detail is what was asked for; missing artwork is a note, not a failure.
                env.output.notice("no artwork: \(error.summary)")
                artwork = nil
            }
            try LibraryRenderer(output: env.output).detail(found.detail, source: found.source, artwork: artwork)
        }
    }

    /// Prints (or writes) an album's artwork.
    public struct Artwork: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "artwork", 
            abstract: "Print the path of an album's cached artwork, or write the image with -o.",
            discussion: "Albums without artwork get a placeholder image, never an error.\nExamples:\n  brados library artwork 1006 --size 1024\n  brados library artwork 1006 --size 2048 -o cover.png")
        @Argument(help: "The album's rating key.", completion: .custom { _, _, _ in LibraryPlugin.cachedRatingKeys() }) var ratingKey: String
        @Option(help: "1024 (lists) or 2048 (detail).") var size: ArtworkStore.Size = .list
        @Option(name: .shortAndLong, help: ArgumentHelp("Write the image to this file ('-' for stdout).", valueName: "file")) var output: String?
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try LibraryStore.live(env)
            let album = try await store.album(ratingKey)
            let image = try await store.artwork.artwork(for: album, size: size)
            let file = try store.artwork.file(for: album, size: size)
            switch output {
            case "-"?: FileHandle.standardOutput.write(image.data)
            case let path?:
                try AtomicFile.write(image.data, to: URL(fileURLWithPath: path), mode: 0o644, createParents: false)
                if env.output.format == .json { try env.output.json(["path": path]) } else { env.output.line(path) }
            case nil:
                if env.output.format == .json {
                    struct Document: Encodable { var path: String; var cached: Bool; var placeholder: Bool }
                    try env.output.json(Document(path: file.path, cached: image.cached, placeholder: image.placeholder))
                } else {
                    env.output.line(file.path)
                }
            }
        }
    }
}
