import ArgumentParser
import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

extension LibraryCommand.Cache {
    public struct Stats: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "stats", abstract: "Artwork cache size per bucket, cap, and snapshot age.", discussion: "Examples:\n  brados library cache stats")
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try LibraryRepository.live(env)
            let stats = try repository.artwork.blobs.stats()
            let snapshot = repository.snapshot()
            if env.output.format == .json {
                struct Document: Encodable { var artwork: BlobStoreStats; var snapshotAlbums: Int?; var snapshotSavedAt: Date? }
                return try env.output.json(Document(artwork: stats, snapshotAlbums: snapshot?.albumCount, snapshotSavedAt: snapshot?.savedAt))
            }
            var rows = stats.buckets.map { ["\($0.bucket) px", "\($0.entries)", Format.bytes($0.bytes)] }
            rows.append(["total", "\(stats.entries)", "\(Format.bytes(stats.bytes)) of \(Format.bytes(stats.capacity))"])
            env.output.table(Table(headers: ["ARTWORK", "ENTRIES", "SIZE"], rows: rows, rightAligned: [1]))
            env.output.line(snapshot.map { "Snapshot: \($0.albumCount) albums, saved \(Format.ago(env.now().timeIntervalSince($0.savedAt)))." } ?? "No snapshot yet.")
        }
    }
}
