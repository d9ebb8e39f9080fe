import ArgumentParser
import BradOSCore

extension NutritionCommand.SetInput {
    /// `plan set activity sedentary|lightly_active|moderately_active|very_active|extremely_active`.
    public struct Activity: EnvironmentCommand {
        public static let configuration = CommandConfiguration(
            commandName: "activity", abstract: "Set your activity level, then recompute the plan.",
            discussion: """
            The level multiplies your BMR into the energy you burn (TDEE): sedentary 1.2, \
            lightly_active 1.375, moderately_active 1.55, very_active 1.725, extremely_active 1.9.
            Examples:
              brados plan set activity very_active
              brados --offline plan set activity sedentary
            """)
        @Argument(help: "Your activity level.") var level: ActivityLevel
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws { try await NutritionCommand.SetInput.run(.activityLevel(level), in: env) }
    }
}
