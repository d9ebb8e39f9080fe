import ArgumentParser
import BradOSCore
import Foundation

extension VisitsCommand {
    /// The background half of `visits list` in scripts: refreshes the cache, then exits.
    /// Hidden; one at a time per profile (a lock), so a loop of `visits list` runs one fetch.
    public struct Revalidate: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "revalidate", 
            abstract: "Refresh the visits cache in the background (used by `visits list`).", discussion: "Examples:\n  brados visits revalidate", shouldDisplay: false)

        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let lock = try FileLock(url: Self.lockURL(env))
            guard lock.tryLock() else { return } // another revalidation is already running
            defer { lock.unlock() }
            _ = try await VisitsRepository.live(env).fetch()
        }

        static func lockURL(_ env: AppEnvironment) -> URL {
            env.profile.cacheDirectory(for: VisitsPlugin.domainName).appendingPathComponent("revalidate.lock")
        }
    }
}
