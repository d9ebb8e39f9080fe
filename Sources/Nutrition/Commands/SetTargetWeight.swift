import ArgumentParser
import BradOSCore
import BradOSTerminal

extension NutritionCommand.SetInput {
    /// `plan set target-weight KG`.
    public struct TargetWeight: EnvironmentCommand {
        public static let configuration = CommandConfiguration(
            commandName: "target-weight", abstract: "Set the weight you aim for (30–300 kg), then recompute the plan.",
            discussion: "Examples:\n  brados plan set target-weight 78\n  brados --offline plan set target-weight 77.5")
        @Argument(help: "Your target weight in kilograms, e.g. 78.") var kilograms: Double
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            guard kilograms.isFinite, NutritionInputChange.weightRange.contains(kilograms) else {
                throw ValidationError("The target weight must be between 30 and 300 kg (got \(Format.number(kilograms))).")
            }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws { try await NutritionCommand.SetInput.run(.targetWeight(kilograms), in: env) }
    }
}
