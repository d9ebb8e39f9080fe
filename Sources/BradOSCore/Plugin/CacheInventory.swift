import Foundation

/// `brados cache stats|clear` logic over every domain, through the plugin contract.
public struct CacheInventory: Sendable {
    let env: AppEnvironment

    public init(_ env: AppEnvironment) { self.env = env }

    public struct Entry: Codable, Sendable {
        public var domain: String
        public var summary: String
        public var files: Int
        public var bytes: Int64
        public var entries: Int?
        public var oldest: Date?
        public var newest: Date?
        public var folders: [String]

        public init(domain: String, summary: String, files: Int, bytes: Int64, entries: Int?, oldest: Date?, newest: Date?, folders: [String]) {
            self.domain = domain
            self.summary = summary
            self.files = files
            self.bytes = bytes
            self.entries = entries
            self.oldest = oldest
            self.newest = newest
            self.folders = folders
        }
    }

    /// Per-domain sizes for the profile.
    /// - Throws: ``StorageError``, ``ConfigError`` for an unknown domain.
    public func stats(domains: [String]? = nil) throws -> [Entry] {
        try selected(domains).map { plugin in
            let stats = try plugin.stats(in: env.profile)
            return Entry(domain: plugin.name, summary: plugin.summary, files: stats.files, bytes: stats.bytes, entries: stats.entries,
                         oldest: stats.oldest, newest: stats.newest, folders: plugin.folders(in: env.profile).map(\.path))
        }
    }

    /// Clears the named domains (all when `nil`) and returns what was removed.
    /// - Throws: ``StorageError``, ``ConfigError`` for an unknown domain.
    public func clear(domains: [String]? = nil) throws -> [Entry] {
        let before = try stats(domains: domains)
        let plugins = try selected(domains)
        for plugin in plugins { try plugin.clear(in: env.profile) }
        // What features derive from the domains (the search index) keeps nothing a cleared domain no longer has.
        try env.features.forget(domains: plugins.count == env.plugins.count ? nil : plugins.map(\.name), in: env.profile)
        return before
    }

    private func selected(_ names: [String]?) throws -> [any DomainPlugin] {
        guard let names, !names.isEmpty else { return env.plugins }
        return try names.map { try env.plugin(named: $0) }
    }
}
