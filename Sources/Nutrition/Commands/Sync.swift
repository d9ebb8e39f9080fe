import ArgumentParser
import BradOSCore

extension NutritionCommand {
    public struct Sync: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "sync", 
            abstract: "Send the queued changes in order, then recompute the plan.",
            discussion: "A change leaves the queue only once the service confirmed it. A failure worth retrying stops here and keeps the rest in order (exit code of that failure); a change the service refuses is reported and dropped. Two `plan sync` at once never send the same change.\nChanges that came in an imported archive are paused (they could overwrite newer data): they are sent only with --include-imported, or when you say yes on a terminal.\nExamples:\n  brados plan sync\n  brados plan sync --include-imported")
        @Flag(help: "Send changes that came in an imported archive too (see `brados plan pending`).") var includeImported = false
        @OptionGroup public var global: GlobalOptions
        public init() {}
        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let store = try NutritionRepository.live(env)
            var include = includeImported
            let imported = try store.queue.all().filter(\.isImported)
            if !include, !imported.isEmpty, env.io.isInputTerminal, env.io.isErrorTerminal, env.output.format == .human {
                include = env.io.confirm("\(imported.count) queued change\(imported.count == 1 ? "" : "s") came from an imported archive (\(imported[0].importedFrom ?? "an archive")) and may overwrite newer data. Send \(imported.count == 1 ? "it" : "them") too?")
            }
            let sendImported = include
            let report = try await Spinner.run("Sending queued changes", io: env.io, enabled: env.output.format == .human) { try await store.sync(includeImported: sendImported) }
            try NutritionRenderer(output: env.output).sync(report)
            if let error = report.stoppedBy, !report.remaining.isEmpty { throw error }
        }
    }
}
