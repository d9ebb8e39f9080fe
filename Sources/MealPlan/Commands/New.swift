import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Generates a new draft plan and makes it the one in progress.
    public struct New: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "new", 
            abstract: "Generate a new draft plan (clears the cached plan).",
            discussion: "The draft is not cached: critique it, then finalize it.\nExamples:\n  brados mealplan new")

        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let draft = try await MealPlanRepository.live(env).startNew()
            try MealPlanRenderer(output: env.output, now: env.now()).render(draft, source: .network)
            if env.output.format == .human {
                env.output.notice("draft \(draft.id) is in progress: `brados mealplan critique \"…\"`, then `brados mealplan finalize`.")
            }
        }
    }
}
