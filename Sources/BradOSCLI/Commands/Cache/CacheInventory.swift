import BradOSCore
import BradOSStorage
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
        @NullWhenAbsent public var entries: Int?
        @NullWhenAbsent public var oldest: Date?
        @NullWhenAbsent public var newest: Date?
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

    /// What `cache clear` did to one domain.
    public struct Cleared: Codable, Sendable {
        public var domain: String
        /// The files and bytes removed.
        public var files: Int
        public var bytes: Int64
        /// What the person made and has not sent, kept (a cache command never deletes it
        /// unless told to: `--discard-pending`).
        public var keptUnsent: [UnsentChange]
        /// History kept only here, kept.
        public var keptHistory: [HistoryItems]
        /// The unsent changes dropped, with `--discard-pending`.
        public var discardedUnsent: [UnsentChange]
        /// Files of the person's own that cannot be read: kept, `--discard-pending` or not.
        public var keptUnreadable: [UnreadableData]
    }

    /// Clears the cached copies of the named domains (all when `nil`). What a person made
    /// (``KeepsPersonalData``: changes not sent, history kept only here) stays, unless
    /// `discardPending`, which drops the unsent changes too (history stays either way). A file
    /// of the person's own that cannot be read stays as it is, named in the report.
    /// - Throws: ``StorageError``, ``ConfigError`` for an unknown domain.
    public func clear(domains: [String]? = nil, discardPending: Bool = false) throws -> [Cleared] {
        let plugins = try selected(domains)
        var report: [Cleared] = []
        for plugin in plugins {
            let before = try plugin.stats(in: env.profile)
            var personal = PersonalData()
            var discarded: [UnsentChange] = []
            if let keeper = plugin as? any KeepsPersonalData {
                personal = try keeper.personalData(in: env.profile, forms: env.output.forms)
                if discardPending, !personal.unsent.isEmpty {
                    try keeper.discardUnsent(in: env.profile)
                    discarded = personal.unsent
                    personal.unsent = []
                }
                try keeper.clearCache(in: env.profile)
            } else {
                try plugin.clear(in: env.profile)
            }
            let after = try plugin.stats(in: env.profile)
            report.append(Cleared(domain: plugin.name, files: max(0, before.files - after.files), bytes: max(0, before.bytes - after.bytes),
                                  keptUnsent: personal.unsent, keptHistory: personal.history, discardedUnsent: discarded,
                                  keptUnreadable: personal.unreadable))
        }
        // The cleared copies were what an import brought: no label stays on them.
        try ImportedData.forget(domains: plugins.map(\.name), in: env.profile)
        // What features derive from the domains (the search index) keeps nothing a cleared domain no longer has.
        try env.features.forget(domains: plugins.count == env.plugins.count ? nil : plugins.map(\.name), in: env.profile)
        return report
    }

    private func selected(_ names: [String]?) throws -> [any DomainPlugin] {
        guard let names, !names.isEmpty else { return env.plugins }
        return try names.map { try env.plugin(named: $0) }
    }
}
