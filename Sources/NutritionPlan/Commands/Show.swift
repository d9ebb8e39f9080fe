import ArgumentParser
import BradOSCore

extension PlanCommand {
    public struct Show: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the plan's daily targets (from the cache within the TTL).", discussion: "Examples:\n  brados plan\n  brados plan show --json")
        @OptionGroup var global: GlobalOptions
        public init() {}
        public func run() async throws { try await PlanCommand.present(.summary, global: global) }
    }
}
