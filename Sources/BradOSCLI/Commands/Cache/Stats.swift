import ArgumentParser
import BradOSArchive
import BradOSCore
import BradOSTerminal
import Foundation

extension CacheCommand {
    public struct Stats: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "stats", abstract: "Show what each domain stores for the profile.", discussion: "Examples:\n  brados cache stats\n  brados cache stats --json")
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Prints each domain's entries, files, size and ages, and the profile's total.
        /// - Throws: ``StorageError``, ``ConfigError`` (see ``AppEnvironment/live(_:access:)``).
        public func run(in env: AppEnvironment) async throws {
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
}
