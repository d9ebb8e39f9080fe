import ArgumentParser
import BradOSCore

extension NutritionCommand {
    public struct Targets: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "targets", abstract: "Show every target, BMR and TDEE included.", discussion: "Examples:\n  brados plan targets")
        @OptionGroup var global: GlobalOptions
        public init() {}
        public func run() async throws { try await NutritionCommand.present(.targets, global: global) }
    }
}
