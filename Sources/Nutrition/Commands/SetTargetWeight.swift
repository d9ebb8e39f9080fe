import ArgumentParser
import BradOSCore
import BradOSTerminal

extension NutritionCommand.SetInput {
    /// `plan set target-weight WEIGHT`.
    public struct TargetWeight: EnvironmentCommand {
        public static let configuration = CommandConfiguration(
            commandName: "target-weight", abstract: "Set the weight you aim for (30–300 kg, 66–661 lb), then recompute the plan.",
            discussion: """
            A bare number is in your `units`; a unit after it says which: 78, 77,5, 172lb, "78 kg".
            Examples:
              brados plan set target-weight 78
              brados plan set target-weight 172lb
              brados --offline plan set target-weight 77,5
            """)
        @Argument(help: ArgumentHelp("The weight you aim for, in your units or with its unit: 78, 77,5, 172lb.", valueName: "weight"))
        var weight: [String]
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            guard (1...4).contains(weight.count) else { throw ValidationError("Give one weight, e.g. 78 or 172lb.") }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let input = try WeightInput.parse(weight.joined(separator: " "), units: env.output.forms.units, what: "target weight")
            try input.checkRange(what: "target weight")
            try await NutritionCommand.SetInput.run(.targetWeight(input.kilograms), in: env)
        }
    }
}
