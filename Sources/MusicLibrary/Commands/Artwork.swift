import ArgumentParser
import BradOSCore
import BradOSStorage
import Foundation

extension LibraryCommand {
    /// Prints (or writes) an album's artwork.
    public struct Artwork: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "artwork", 
            abstract: "Print the path of an album's cached artwork, or write the image with -o.",
            discussion: """
            The image is kept as the server sends it (Plex transcodes to JPEG; PNG and others are \
            kept too). With -o, the file gets the extension of what it is: cover.png becomes \
            cover.jpg for a JPEG, and a name without one gets it; a folder gets RATINGKEY.EXT. \
            Albums without artwork get a placeholder image, never an error.
            Examples:
              brados library artwork 1006 --size 1024
              brados library artwork 1006 --size 2048 -o cover
              brados library artwork 1006 -o ~/Pictures/
              brados library artwork 1006 -o - | feh -
            """)
        @Argument(help: "The album's rating key.", completion: .custom { _, _, _ in LibraryPlugin.cachedRatingKeys() }) var ratingKey: String
        @Option(help: "1024 (lists) or 2048 (detail).") var size: ArtworkCache.Size = .list
        @Option(name: .shortAndLong, help: ArgumentHelp("Write the image to this file ('-' for stdout).", valueName: "file")) var output: String?
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try LibraryRepository.live(env)
            let album = try await repository.album(ratingKey)
            let image = try await repository.artwork.artwork(for: album, size: size)
            let file = try repository.artwork.file(for: album, size: size)
            let format = ImageFormat(sniffing: image.data)
            switch output {
            case "-"?: env.io.write(bytes: image.data)
            case let path?:
                let written = Self.destination(path, ratingKey: album.ratingKey, format: format)
                if written != path, !Self.isFolder(path), let format {
                    // A file the user did not name is never replaced.
                    if FileManager.default.fileExists(atPath: written) { throw LibraryError.wouldReplace(written, asked: path, format: format.rawValue.uppercased()) }
                    env.output.notice("the image is a \(format.rawValue.uppercased()): writing \(written)")
                }
                try AtomicFile.write(image.data, to: URL(fileURLWithPath: written), mode: 0o644, createParents: false)
                if env.output.format == .json {
                    struct Document: Encodable { var path: String; var format: ImageFormat? }
                    try env.output.json(Document(path: written, format: format))
                } else { env.output.line(written) }
            case nil:
                if env.output.format == .json {
                    struct Document: Encodable { var path: String; var format: ImageFormat?; var cached: Bool; var placeholder: Bool }
                    try env.output.json(Document(path: file.path, format: format, cached: image.cached, placeholder: image.placeholder))
                } else {
                    env.output.line(file.path)
                }
            }
        }

        /// The file to write: in a folder, `RATINGKEY.EXT`; otherwise the path with the
        /// extension of the image's format (see ``ImageFormat/fittingPath(_:)``).
        static func destination(_ path: String, ratingKey: String, format: ImageFormat?) -> String {
            if isFolder(path) {
                return URL(fileURLWithPath: path).appendingPathComponent(ratingKey + "." + (format?.fileExtension ?? "img")).path
            }
            return format?.fittingPath(path) ?? path
        }

        /// An existing folder, or a path written as one (`dir/`).
        static func isFolder(_ path: String) -> Bool {
            if path.hasSuffix("/") { return true }
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
        }
    }
}
