import ArgumentParser
import Foundation

/// `brados cache`: the profile's caches across every domain.
public struct CacheCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and clear the profile's caches across domains.",
        subcommands: [Stats.self, Clear.self, Export.self, Import.self, Verify.self, Path.self])

    public init() {}
}

extension CacheCommand {
    public struct Stats: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(abstract: "Show what each domain stores for the profile.")
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try AppEnvironment.live(global)
            let entries = try CacheInventory(env).stats()
            if env.output.format == .json { return try env.output.json(entries) }
            let rows = entries.map { entry in
                [entry.domain, "\(entry.files)", Format.bytes(entry.bytes),
                 entry.newest.map { Format.ago(env.now().timeIntervalSince($0)) } ?? "-"]
            }
            let total = entries.reduce(Int64(0)) { $0 + $1.bytes }
            env.output.table(Table(headers: ["DOMAIN", "FILES", "SIZE", "UPDATED"], rows: rows, rightAligned: [1, 2]))
            env.output.line("Total \(Format.bytes(total)) for profile \(env.profile.name) in \(env.profile.cacheDirectory.path)")
        }
    }

    public struct Clear: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Remove cached data (all domains, or those named).",
            discussion: "Credentials are kept; use `brados auth logout` to sign out and erase everything.")
        @Option(name: .long, parsing: .upToNextOption, help: "Only these domains.") var domain: [String] = []
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try AppEnvironment.live(global)
            let removed = try CacheInventory(env).clear(domains: domain)
            if env.output.format == .json { return try env.output.json(removed) }
            let bytes = removed.reduce(Int64(0)) { $0 + $1.bytes }
            env.output.line("Cleared \(removed.map(\.domain).joined(separator: ", ")) (\(Format.bytes(bytes))).")
        }
    }
}
