import ArgumentParser
import BradOSCore
import Foundation

extension LibraryCommand {
    /// `brados library use`.
    public struct Use: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "use",
            abstract: "Choose the Plex media server the library uses (saved per profile).",
            discussion: """
            Probes every address plex.tv lists for it (local, then remote, then relay; https first) \
            and keeps the first that answers as that server. With one server it is chosen on its own.
            Examples:
              brados library use "Alice's Music"
              brados --profile work library use office-nas
            """)
        @Argument(help: "The server's name (any case) or machine identifier.") var name: String
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let choice = try await PlexServers(env).use(name)
            if env.output.format == .json {
                return try env.output.json(["name": choice.name, "machineIdentifier": choice.machineIdentifier, "uri": choice.working ?? ""])
            }
            env.output.line("Using \(choice.name) at \(choice.working ?? "?").")
        }
    }
}
