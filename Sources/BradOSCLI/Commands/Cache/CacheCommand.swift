import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation

/// `brados cache`: the profile's caches across every domain.
public struct CacheCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and clear the profile's caches across domains.", discussion: "Examples:\n  brados cache stats\n  brados cache export -o backup.tar.zst\n  brados cache import backup.tar.zst --as laptop",
        subcommands: [Stats.self, Clear.self, Export.self, Import.self, Verify.self, Path.self])

    public init() {}
}

