import ArgumentParser
import BradOSCore

extension CoachCommand {
    /// Shows the context profile.
    public struct Context: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "context", 
            abstract: "Show what your coach knows about you: values, goals, situation (cached for 1 hour).", discussion: "Examples:\n  brados coach context\n  brados coach context --refresh")

        @Flag(help: "Ask the server even if the cached profile is fresh.") var refresh = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if refresh && global.offline { throw ValidationError("--refresh needs the network; it cannot go with --offline.") }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try CoachRepository.live(env)
            let renderer = CoachRenderer(output: env.output, contextTTL: repository.contextTTL)
            try await env.reader.show(repository.context(refresh: refresh)) { try renderer.context($0, source: $1) }
        }
    }
}
