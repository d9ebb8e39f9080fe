import ArgumentParser
import BradOSCore

extension LibraryCommand {
    /// Lists collections, or one collection's albums.
    public struct Collections: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "collections", 
            abstract: "List collections (from the snapshot first), or the albums of one.", discussion: "Examples:\n  brados library collections\n  brados library collections 2001")

        @Argument(help: "A collection's rating key: list its albums (live).") var collection: String?
        @Option(help: ArgumentHelp("A music section, by key or title (default: library.section, else the first music section).", valueName: "key|title"))
        var section: String?
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try LibraryStore.live(env)
            let renderer = LibraryRenderer(output: env.output)
            if let collection {
                let title = store.snapshot()?.collections.first { $0.ratingKey == collection }?.title ?? "Collection \(collection)"
                return try renderer.albumList(try await store.collectionAlbums(collection), title: title)
            }
            let section = self.section
            let interactive = env.io.isOutputTerminal && env.output.format == .human
            let flow = CachedRead<LibrarySnapshot>(
                policy: try LibraryPlugin.cachePolicy(env), mode: interactive ? .interactive : .script, offline: env.isOffline,
                noun: "collections", io: env.io, now: env.now,
                fetch: { progress in try await store.refresh(section: section, progress: progress) },
                render: { try renderer.collections($0, source: $1) },
                rerenderIfChanged: { old, new in
                    guard old.collections != new.collections else { return false }
                    try renderer.collections(new, source: .network)
                    return true
                },
                notice: env.output.notice,
                startBackgroundRefresh: { try DetachedProcess.spawn(arguments: Revalidate.arguments(env, section: section)) },
                refreshStamp: .of(domain: LibraryPlugin.domainName, in: env.profile))
            try await flow.run(store.cached(section: section))
        }
    }

    /// Lists the server's library sections.
    public struct Sections: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "sections", abstract: "List the Plex server's library sections.",
            discussion: """
            USED marks the music section commands use when they name none: library.section (a key \
            or title), else the first music section. --section KEY|TITLE picks another for one command.
            Examples:
              brados library sections
              brados config set library.section "Live Recordings"
              brados library albums --section 2
            """)
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try LibraryStore.live(env)
            let sections = try await store.sections()
            try LibraryRenderer(output: env.output).sections(sections, used: (try? LibraryStore.choose(store.defaultSection, from: sections))?.key)
        }
    }

    /// Refreshes the snapshot in the background (used by `albums`/`collections` in scripts).
    public struct Revalidate: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "revalidate", abstract: "Refresh the library snapshot in the background.", discussion: "Examples:\n  brados library revalidate", shouldDisplay: false)
        @Option(help: ArgumentHelp("A music section, by key or title.", valueName: "key|title")) var section: String?
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let lock = try FileLock(url: env.profile.cacheDirectory(for: LibraryPlugin.domainName).appendingPathComponent("revalidate.lock"))
            guard lock.tryLock() else { return }
            defer { lock.unlock() }
            _ = try await LibraryStore.live(env).refresh(section: section)
        }

        static func arguments(_ env: AppEnvironment, section: String?) -> [String] {
            var arguments = ["library", "revalidate", "--profile", env.profile.name.rawValue]
            if let section { arguments += ["--section", section] }
            if let server = env.settings.flags.server { arguments += ["--server", server] }
            return arguments
        }
    }
}
