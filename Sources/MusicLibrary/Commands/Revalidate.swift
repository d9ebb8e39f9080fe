import ArgumentParser
import BradOSCore

extension LibraryCommand {
    /// Refreshes the snapshot in the background (used by `albums`/`collections` in scripts).
    public struct Revalidate: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "revalidate", abstract: "Refresh the library snapshot in the background.", discussion: "Examples:\n  brados library revalidate", shouldDisplay: false)
        @Option(help: ArgumentHelp("A music section, by key or title.", valueName: "key|title")) var section: String?
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let lock = try FileLock(url: env.profile.cacheDirectory(for: LibraryPlugin.domainName).appendingPathComponent("revalidate.lock"))
            guard lock.tryLock() else { return }
            defer { lock.unlock() }
            _ = try await LibraryRepository.live(env).refresh(section: section)
        }
    }
}
