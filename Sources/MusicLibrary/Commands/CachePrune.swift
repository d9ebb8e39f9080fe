import ArgumentParser
import BradOSCore
import BradOSTerminal
import Foundation

extension LibraryCommand.Cache {
    public struct Prune: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "prune", 
            abstract: "Evict least recently used artwork down to a size (default: the cap), and remove stray files.", discussion: "Examples:\n  brados library cache prune\n  brados library cache prune --max-size 100MB")
        @Option(help: ArgumentHelp("Keep at most this much, e.g. 100MB.", valueName: "size")) var maxSize: String?
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if let maxSize, parseByteSize(maxSize) == nil { throw ValidationError("--max-size '\(maxSize)' is not a size such as 100MB.") }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let cache = try LibraryRepository.live(env).artwork.blobs
            let limit = try maxSize.flatMap(parseByteSize) ?? cache.stats().capacity
            let report = try cache.trim(toBytes: limit)
            if env.output.format == .json { return try env.output.json(report) }
            env.output.line("Evicted \(report.evictedEntries) entries (\(Format.bytes(report.evictedBytes))), removed \(report.orphanFilesRemoved) stray files; \(Format.bytes(report.remainingBytes)) remain.")
        }
    }
}
