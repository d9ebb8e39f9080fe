import ArgumentParser
import BradOSCore
import Foundation

extension LibraryCommand {
    /// `library cache stats|prune`.
    public struct Cache: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "cache", 
            abstract: "Inspect and prune the artwork cache.", discussion: "Examples:\n  brados library cache stats\n  brados library cache prune --max-size 100MB", subcommands: [Stats.self, Prune.self])
        public init() {}
    }
}
