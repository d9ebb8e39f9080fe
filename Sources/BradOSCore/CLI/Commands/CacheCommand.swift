import ArgumentParser
import Foundation

/// `brados cache`: the profile's caches across every domain.
public struct CacheCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and clear the profile's caches across domains.", discussion: "Examples:\n  brados cache stats\n  brados cache export -o backup.tar.zst\n  brados cache import backup.tar.zst --as laptop",
        subcommands: [Stats.self, Clear.self, Export.self, Import.self, Verify.self, Path.self])

    public init() {}
}

extension CacheCommand {
    public struct Stats: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "stats", abstract: "Show what each domain stores for the profile.", discussion: "Examples:\n  brados cache stats\n  brados cache stats --json")
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Prints each domain's entries, files, size and ages, and the profile's total.
        /// - Throws: ``StorageError``, ``ConfigError`` (see ``AppEnvironment/live(_:access:)``).
        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let entries = try CacheInventory(env).stats()
            let total = CacheInventory.Entry(domain: "total", summary: "the whole profile", files: entries.reduce(0) { $0 + $1.files },
                                             bytes: entries.reduce(0) { $0 + $1.bytes }, entries: nil,
                                             oldest: entries.compactMap(\.oldest).min(), newest: entries.compactMap(\.newest).max(),
                                             folders: [env.profile.cacheDirectory.path, env.profile.dataDirectory.path])
            if env.output.format == .json {
                struct Document: Encodable { var profile: String; var domains: [CacheInventory.Entry]; var total: CacheInventory.Entry }
                return try env.output.json(Document(profile: env.profile.name.rawValue, domains: entries, total: total))
            }
            func ago(_ date: Date?) -> String { date.map { Format.ago(env.now().timeIntervalSince($0)) } ?? "-" }
            let rows = (entries + [total]).map { entry in
                [entry.domain, entry.entries.map { Format.count($0) } ?? "-", "\(entry.files)", Format.bytes(entry.bytes), ago(entry.oldest), ago(entry.newest)]
            }
            env.output.table(Table(headers: ["DOMAIN", "ENTRIES", "FILES", "SIZE", "OLDEST", "NEWEST"], rows: rows, rightAligned: [1, 2, 3]))
            env.output.line(env.output.styled("profile \(env.profile.name): \(env.profile.cacheDirectory.path), \(env.profile.dataDirectory.path)", .dim))
        }
    }

    public struct Clear: AsyncParsableCommand {
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "clear", 
            abstract: "Remove cached data (all domains, or those named).",
            discussion: "Credentials are kept; use `brados auth logout` to sign out and erase everything.\nExamples:\n  brados cache clear\n  brados cache clear \(HelpExamples.domains(2))") }
        @Argument(help: "Only these domains (all when none is named).", completion: .custom { _, _, _ in CompletionValues.domains() }) var domains: [String] = []
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Only these domains (same as naming them).", visibility: .hidden)) var domain: [String] = []
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Removes the cached data of every domain, or of those named, holding the profile exclusively.
        /// - Throws: ``ConfigError/unknownDomain(_:known:)`` for a domain no plugin has; ``StorageError``
        ///   (``StorageError/profileBusy(profile:holder:)`` while another brados holds the profile), ``ConfigError``.
        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: .exclusive(activity: "clearing the cache"))
            let removed = try CacheInventory(env).clear(domains: domains + domain)
            if env.output.format == .json { return try env.output.json(removed) }
            let bytes = removed.reduce(Int64(0)) { $0 + $1.bytes }
            env.output.line("Cleared \(removed.map(\.domain).joined(separator: ", ")) (\(Format.bytes(bytes))).")
        }
    }
}
