import ArgumentParser
import BradOSCore
import Foundation

extension VisitsCommand {
    /// The background half of `visits list` and `visits show`: refreshes the cache, then exits.
    /// Hidden; one at a time per profile (a lock), so a loop of `visits list` runs one fetch.
    public struct Revalidate: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "revalidate", 
            abstract: "Refresh the visits cache in the background (used by `visits list`).", discussion: "Examples:\n  brados visits revalidate", shouldDisplay: false)

        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let visits = try VisitsRepository.live(env)
            // One at a time (another already running leaves it be); a failure kept for the next read to tell.
            try await (visits.refreshStamp ?? .of(domain: VisitsPlugin.domainName, in: env.profile)).runBehind(now: env.now) {
                _ = try await visits.fetch()
            }
        }
    }
}
