import ArgumentParser
import BradOSCore
import BradOSPictures

extension NutritionCommand {
    public struct Show: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the plan's daily targets and your weight trend (from the cache within the TTL).", discussion: """
            Under the targets, the weights you logged are plotted in braille dots, dates along \
            the bottom, the target dashed and the last value labelled; weights queued and not \
            sent yet are dotted (yellow). The plot is drawn on a terminal only (not through a \
            pipe, with --json or with --art none); --json lists the weights instead.
            Examples:
              brados plan
              brados plan show --art none
              brados plan show --json
            """)
        @OptionGroup var art: ArtOptions
        @OptionGroup public var global: GlobalOptions
        public init() {}
        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws { try await NutritionCommand.present(.summary, in: env, art: art) }
    }
}
