import ArgumentParser
import BradOSCore

extension LibraryCommand {
    /// Fetches the first screen's 1024 px artwork.
    public struct Prefetch: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "prefetch", 
            abstract: "Cache the 1024 px artwork of the first screen of albums (4 at a time).", discussion: "Examples:\n  brados library prefetch\n  brados library prefetch --rows 10 --columns 4")
        @Option(help: ArgumentHelp("A music section, by key or title (default: library.section, else the first music section).", valueName: "key|title"))
        var section: String?
        @OptionGroup var screen: ScreenOptions
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let store = try LibraryRepository.live(env)
            let snapshot = if let cached = store.cached(section: section) { cached.value } else { try await store.refresh(section: section) }
            try await Self.prefetch(try snapshot.albums(limit: screen.firstScreen(env.io)), store: store, env: env)
        }

        static func prefetch(_ albums: [Album], store: LibraryRepository, env: AppEnvironment) async throws {
            let indicator = Spinner(io: env.io, message: "prefetching artwork…")
            defer { indicator.stop() }
            let report = try await store.artwork.prefetch(albums) { done, total in indicator.update(done: done, total: total) }
            if env.output.format == .json { return try env.output.json(report) }
            env.output.notice("artwork: \(report.fetched) fetched, \(report.alreadyCached) already cached, \(report.failed) failed"
                              + (report.skippedWithoutArtwork > 0 ? ", \(report.skippedWithoutArtwork) without artwork" : "") + ".")
        }
    }
}
