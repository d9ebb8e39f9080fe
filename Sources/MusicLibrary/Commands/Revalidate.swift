import ArgumentParser
import BradOSCore

extension LibraryCommand {
    /// Refreshes the snapshot in the background (used by `albums`/`collections` in scripts).
    public struct Revalidate: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "revalidate", abstract: "Refresh the library snapshot (or an album's details) in the background.", discussion: "Examples:\n  brados library revalidate", shouldDisplay: false)
        @Option(help: ArgumentHelp("A music section, by key or title.", valueName: "key|title")) var section: String?
        @Option(help: ArgumentHelp("One album's (or collection's) details instead.", valueName: "key")) var album: String?
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try LibraryRepository.live(env)
            if let album {
                let detail = repository.detail(album)
                try await detail.backgroundRefresh?.stamp?.runBehind(now: env.now) { _ = try await detail.fetch { _, _ in } }
                return
            }
            let stamp = repository.refreshStamp ?? .of(domain: LibraryPlugin.domainName, in: env.profile)
            try await stamp.runBehind(now: env.now) { _ = try await repository.refresh(section: section) }
        }
    }
}
