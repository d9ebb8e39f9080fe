import ArgumentParser
import BradOSCore

extension VisitsCommand {
    /// Lists visits, stale-while-revalidate.
    public struct List: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "list", 
            abstract: "List visits, newest first (from cache when fresh; revalidated behind it).", discussion: "Examples:\n  brados visits\n  brados visits list --refresh\n  brados visits list --json")

        @Flag(help: "Ignore the cache and ask the server (pull-to-refresh).") var refresh = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if refresh && global.offline { throw ValidationError("--refresh needs the network; it cannot go with --offline.") }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            env.pageOutput()
            let visits = try VisitsRepository.live(env)
            defer { visits.tellSettled(env.output.notice) }
            try await env.reader.show(visits.list, with: VisitsRenderer(output: env.output, now: env.now), refresh: refresh)
        }
    }
}
