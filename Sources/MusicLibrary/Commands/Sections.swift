import ArgumentParser
import BradOSCore

extension LibraryCommand {
    /// Lists the server's library sections.
    public struct Sections: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "sections", abstract: "List the Plex server's library sections.",
            discussion: """
            USED marks the music section commands use when they name none: library.section (a key \
            or title), else the first music section. --section KEY|TITLE picks another for one command.
            Examples:
              brados library sections
              brados config set library.section "Live Recordings"
              brados library albums --section 2
            """)
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try LibraryRepository.live(env)
            let sections = try await store.sections()
            try LibraryRenderer(output: env.output).sections(sections, used: (try? LibraryRepository.choose(store.defaultSection, from: sections))?.key)
        }
    }
}
