import ArgumentParser
import BradOSCore

extension NutritionCommand {
    public struct Why: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "why", abstract: "Explain why the targets work, with the science behind them.", discussion: "Examples:\n  brados plan why")
        @OptionGroup var global: GlobalOptions
        public init() {}
        public func run() async throws { try await NutritionCommand.present(.why, global: global) }
    }
}
