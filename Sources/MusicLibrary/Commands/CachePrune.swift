import ArgumentParser
import BradOSCore
import Foundation

extension LibraryCommand.Cache {
    public struct Prune: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "prune", 
            abstract: "Evict least recently used artwork down to a size (default: the cap), and remove stray files.", discussion: "Examples:\n  brados library cache prune\n  brados library cache prune --max-size 100MB")
        @Option(help: ArgumentHelp("Keep at most this much, e.g. 100MB.", valueName: "size")) var maxSize: String?
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if let maxSize, parseByteSize(maxSize) == nil { throw ValidationError("--max-size '\(maxSize)' is not a size such as 100MB.") }
        }

        /// Runs in the environment of the `brados` process (``AppEnvironment/live(_:access:)``).
        public func run() async throws {
            try await run(in: AppEnvironment.live(global))
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let cache = try LibraryRepository.live(env).artwork.cache
            let limit = try maxSize.flatMap(parseByteSize) ?? cache.stats().capacity
            let report = try cache.trim(toBytes: limit)
            if env.output.format == .json { return try env.output.json(report) }
            env.output.line("Evicted \(report.evictedEntries) entries (\(Format.bytes(report.evictedBytes))), removed \(report.orphanFilesRemoved) stray files; \(Format.bytes(report.remainingBytes)) remain.")
        }
    }
}
