import ArgumentParser
import BradOSCore
import BradOSTerminal

extension NutritionCommand {
    public struct Sync: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "sync", 
            abstract: "Send the queued changes in order, then recompute the plan.",
            discussion: "A change leaves the queue only once the service confirmed it. A failure worth retrying stops here and keeps the rest in order (exit code of that failure); a change the service refuses is reported and dropped. Two `plan sync` at once never send the same change.\nChanges that came in an imported archive are paused (they could overwrite newer data): they are sent only with --include-imported, or when you say yes on a terminal. Those another account made (an archive of someone else's profile) are never sent to this one unless that account is named with --include-imported-from; --include-imported with such changes queued sends nothing and says so (exit 14).\nExamples:\n  brados plan sync\n  brados plan sync --include-imported\n  brados plan sync --include-imported-from 6b1e…   (the account `plan pending` names)")
        @Flag(help: "Send changes that came in an imported archive too (see `brados plan pending`).") var includeImported = false
        @Option(name: .customLong("include-imported-from"), help: ArgumentHelp("Send changes imported from this other account to this one (repeatable; `plan pending` names it).", valueName: "account"))
        var includeImportedFrom: [String] = []
        @OptionGroup public var global: GlobalOptions
        public init() {}
        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try NutritionRepository.live(env)
            var rule = SendRule(imported: includeImported, account: NutritionPlugin.account(of: env), otherAccounts: Set(includeImportedFrom))
            let queued = try repository.queue.all()
            // Another account's changes: refused before anything is sent, unless that account is named.
            let foreign = queued.filter { $0.isFromAnotherAccount(than: rule.account) && !rule.otherAccounts.contains($0.importedAccount ?? "") }
            if includeImported, let first = foreign.first, let account = first.importedAccount {
                throw NutritionError.anotherAccount(account: account, count: foreign.filter { $0.importedAccount == account }.count,
                                                    origin: first.importedFrom, thisAccount: rule.account)
            }
            let imported = queued.filter { $0.isImported && !$0.isFromAnotherAccount(than: rule.account) }
            if !rule.imported, !imported.isEmpty, env.io.isInputTerminal, env.io.isErrorTerminal, env.output.format == .human {
                rule.imported = env.io.confirm("\(imported.count) queued change\(imported.count == 1 ? "" : "s") came from an imported archive (\(imported[0].importedFrom ?? "an archive")) and may overwrite newer data. Send \(imported.count == 1 ? "it" : "them") too?")
            }
            let sending = rule
            let report = try await Spinner.run("Sending queued changes", io: env.io, enabled: env.output.format == .human) { try await repository.sync(rule: sending) }
            try NutritionRenderer(output: env.output).sync(report)
            if let error = report.stoppedBy, !report.remaining.isEmpty { throw error }
        }
    }
}
