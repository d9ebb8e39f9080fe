import ArgumentParser
import BradOSCore
import Foundation

extension LibraryCommand {
    /// `library cache stats|prune`.
    public struct Cache: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "cache", 
            abstract: "Inspect and prune the artwork cache.", discussion: "Examples:\n  brados library cache stats\n  brados library cache prune --max-size 100MB", subcommands: [Stats.self, Prune.self])
        public init() {}

        public struct Stats: AsyncParsableCommand {
            public static let configuration = CommandConfiguration(commandName: "stats", abstract: "Artwork cache size per bucket, cap, and snapshot age.", discussion: "Examples:\n  brados library cache stats")
            @OptionGroup var global: GlobalOptions
            public init() {}

            public func run() async throws {
                let env = try await AppEnvironment.live(global)
                let store = try LibraryStore.live(env)
                let stats = try store.artwork.cache.stats()
                let snapshot = store.snapshot()
                if env.output.format == .json {
                    struct Document: Encodable { var artwork: BlobCacheStats; var snapshotAlbums: Int?; var snapshotSavedAt: Date? }
                    return try env.output.json(Document(artwork: stats, snapshotAlbums: snapshot?.albums.count, snapshotSavedAt: snapshot?.savedAt))
                }
                var rows = stats.buckets.map { ["\($0.bucket) px", "\($0.entries)", Format.bytes($0.bytes)] }
                rows.append(["total", "\(stats.entries)", "\(Format.bytes(stats.bytes)) of \(Format.bytes(stats.capacity))"])
                env.output.table(Table(headers: ["ARTWORK", "ENTRIES", "SIZE"], rows: rows, rightAligned: [1]))
                env.output.line(snapshot.map { "Snapshot: \($0.albums.count) albums, saved \(Format.ago(env.now().timeIntervalSince($0.savedAt)))." } ?? "No snapshot yet.")
            }
        }

        public struct Prune: AsyncParsableCommand {
            public static let configuration = CommandConfiguration(commandName: "prune", 
                abstract: "Evict least recently used artwork down to a size (default: the cap), and remove stray files.", discussion: "Examples:\n  brados library cache prune\n  brados library cache prune --max-size 100MB")
            @Option(help: ArgumentHelp("Keep at most this much, e.g. 100MB.", valueName: "size")) var maxSize: String?
            @OptionGroup var global: GlobalOptions
            public init() {}

            public func validate() throws {
                if let maxSize, parseByteSize(maxSize) == nil { throw ValidationError("--max-size '\(maxSize)' is not a size such as 100MB.") }
            }

            public func run() async throws {
                let env = try await AppEnvironment.live(global)
                let cache = try LibraryStore.live(env).artwork.cache
                let limit = try maxSize.flatMap(parseByteSize) ?? cache.stats().capacity
                let report = try cache.trim(toBytes: limit)
                if env.output.format == .json { return try env.output.json(report) }
                env.output.line("Evicted \(report.evictedEntries) entries (\(Format.bytes(report.evictedBytes))), removed \(report.orphanFilesRemoved) stray files; \(Format.bytes(report.remainingBytes)) remain.")
            }
        }
    }
}
