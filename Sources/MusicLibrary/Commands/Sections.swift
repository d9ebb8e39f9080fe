import ArgumentParser
import BradOSCore

extension LibraryCommand {
    /// Lists the server's library sections.
    public struct Sections: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "sections", abstract: "List the Plex server's library sections.",
            discussion: """
            USED marks the music section commands use when they name none: library.section (a key \
            or title), else the first music section. --section KEY|TITLE picks another for one command.
            Examples:
              brados library sections
              brados config set library.section "Live Recordings"
              brados library albums --section 2
            """)
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try LibraryRepository.live(env)
            let sections = try await repository.sections()
            try LibraryRenderer(output: env.output).sections(sections, used: (try? LibraryRepository.choose(repository.defaultSection, from: sections))?.key)
        }
    }
}
