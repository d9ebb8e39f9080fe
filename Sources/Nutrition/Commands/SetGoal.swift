import ArgumentParser
import BradOSCore

extension NutritionCommand.SetInput {
    /// `plan set goal lose_weight|maintain|gain_muscle`.
    public struct Goal: EnvironmentCommand {
        public static let configuration = CommandConfiguration(
            commandName: "goal", abstract: "Set your goal (lose_weight, maintain or gain_muscle), then recompute the plan.",
            discussion: "lose_weight aims at 0.5 kg a week down, gain_muscle at 0.25 kg a week up, maintain holds steady.\nExamples:\n  brados plan set goal maintain\n  brados plan set goal gain_muscle")
        @Argument(help: "Your goal.") var goal: NutritionGoal
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws { try await NutritionCommand.SetInput.run(.goal(goal), in: env) }
    }
}
