import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Sends a critique of the draft in progress.
    public struct Critique: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "critique", 
            abstract: "Critique the plan in progress and show the revised draft.",
            discussion: """
            Examples:
              brados mealplan critique "no fish"
              brados mealplan critique "vegetarian, more protein"
            """)

        @Argument(help: "What to change, in plain words.") var text: String
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw ValidationError("The critique is empty.") }
            guard trimmed.count <= 2000 else { throw ValidationError("The critique is longer than 2000 characters.") }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let revised = try await MealPlanRepository.live(env).critique(text.trimmingCharacters(in: .whitespacesAndNewlines))
            try MealPlanRenderer(output: env.output, now: env.now()).render(revised, source: .network)
        }
    }
}
