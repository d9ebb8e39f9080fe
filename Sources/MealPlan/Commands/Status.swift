import ArgumentParser
import BradOSCore
import BradOSTerminal

extension MealPlanCommand {
    /// Reports the cache state; never makes a request.
    public struct Status: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "status", abstract: "Show whether a plan is cached: id, finalized-at, age, size, path.", discussion: "Examples:\n  brados mealplan status\n  brados --offline mealplan status --json")

        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let status = MealPlanRepository.live(env).status(now: env.now())
            if env.output.format == .json { return try env.output.json(status) }
            var rows = [["cached", status.cached ? "yes" : "no"]]
            if let id = status.sessionId { rows.append(["session", id]) }
            if let finalized = status.finalizedAt { rows.append(["finalized", Format.day(finalized)]) }
            if let age = status.ageSeconds { rows.append(["saved", Format.ago(Double(age))]) }
            if let size = status.sizeBytes { rows.append(["size", Format.bytes(size)]) }
            rows.append(["path", status.path])
            if let draft = status.inProgressSessionId { rows.append(["in progress", draft]) }
            env.output.table(Table(headers: ["", ""], rows: rows))
        }
    }
}
