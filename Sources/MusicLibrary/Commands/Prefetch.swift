import ArgumentParser
import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

extension LibraryCommand {
    /// Fetches the first screen's 1024 px artwork.
    public struct Prefetch: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "prefetch",
            abstract: "Cache the 1024 px artwork of the first screen of albums or collections (4 at a time).", discussion: """
            brados runs this by itself, in the background, after `library albums` or `library \
            collections` loads from the network (`library.prefetch`, on by default; never \
            offline). One prefetch runs at a time: a second waits for the first (a background \
            one leaves it be). A cover the server has none of is asked for once a day at most.
            Examples:
              brados library prefetch
              brados library prefetch --rows 10 --columns 4
              brados library prefetch --collections
              brados config set library.prefetch false
            """)
        @Option(help: ArgumentHelp("A music section, by key or title (default: library.section, else the first music section).", valueName: "key|title"))
        var section: String?
        @OptionGroup var screen: ScreenOptions
        @Flag(help: "The first screen of collections rather than of albums.") var collections = false
        @Flag(help: "As brados starts it after a load: print nothing, and leave it to a prefetch already running.") var background = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            var repository = try LibraryRepository.live(env)
            repository.afterRefresh = nil  // this is the prefetch
            let lock = try FileLock(url: Self.lockURL(env.profile))
            if !lock.tryLock() {
                if background { return }
                env.output.notice("waiting for another prefetch of this profile…")
                try lock.lock()
            }
            defer { lock.unlock() }
            let shown: LibraryRepository.FirstScreen = collections ? .collections : .albums
            let snapshot = if let cached = repository.cached(section: section) { cached.value } else { try await repository.refresh(section: section, shown: shown) }
            let items = try snapshot.firstScreen(shown, limit: screen.firstScreen(env.io))
            if background {
                _ = try await repository.artwork.prefetch(items)
                return
            }
            try await Self.prefetch(items, repository: repository, env: env)
        }


        /// `<profile cache>/library/prefetch.lock`: held while a prefetch runs.
        static func lockURL(_ profile: ProfileScope) -> URL {
            profile.cacheDirectory(for: LibraryPlugin.domainName).appendingPathComponent("prefetch.lock")
        }

        static func prefetch(_ albums: [any ArtworkItem], repository: LibraryRepository, env: AppEnvironment) async throws {
            let indicator = Spinner(io: env.io, message: "prefetching artwork…")
            defer { indicator.stop() }
            let report = try await repository.artwork.prefetch(albums) { done, total in indicator.update(done: done, total: total) }
            if env.output.format == .json { return try env.output.json(report) }
            env.output.notice("artwork: \(report.fetched) fetched, \(report.alreadyCached) already cached, \(report.failed) failed"
                              + (report.skippedWithoutArtwork > 0 ? ", \(report.skippedWithoutArtwork) without artwork" : "") + ".")
        }
    }
}
