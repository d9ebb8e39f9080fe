import ArgumentParser
import Foundation

/// `brados sync`: the terminal's background refresh, for cron or a systemd user timer.
public struct SyncCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Refresh every domain's cache by its policy and send queued changes; quiet unless something fails.",
        discussion: """
        Visits and the plan are revalidated (the plan's queued changes are sent first), the \
        library snapshot is refreshed and the first screen's artwork prefetched, coach \
        conversations are upserted. The finalized meal plan is left alone unless --mealplan.
        Prints nothing when everything worked (use --verbose or --json to see what it did); \
        each failure is reported on stderr and the exit code is the first failure's.
        Example: examples/brados-sync.service and .timer run it every 30 minutes.
        """)

    @Option(help: ArgumentHelp("Only these domains (comma-separated).", valueName: "a,b")) var domains: String?
    @Flag(name: .customLong("mealplan"), help: "Refresh the finalized meal plan too.") var includeMealPlan = false
    @OptionGroup var global: GlobalOptions
    public init() {}

    public func run() async throws {
        let env = try AppEnvironment.live(global)
        let names = domains.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let plugins = try names.map { try $0.map { try env.plugin(named: $0) } } ?? env.plugins
        struct Outcome: Encodable { var domain: String; var status: String; var summary: String?; var error: String?; var seconds: Double }
        var outcomes: [Outcome] = []
        var firstFailure: (any Error)?
        for plugin in plugins {
            let started = ContinuousClock.now
            do {
                let summary = try await plugin.sync(env, options: SyncOptions(includeMealPlan: includeMealPlan))
                outcomes.append(Outcome(domain: plugin.name, status: summary == nil ? "skipped" : "ok", summary: summary,
                                        seconds: (ContinuousClock.now - started).seconds))
            } catch {
                let text = (error as? any BradOSError)?.description ?? "\(error)"
                outcomes.append(Outcome(domain: plugin.name, status: "failed", error: text, seconds: (ContinuousClock.now - started).seconds))
                env.output.notice("sync \(plugin.name): \(text.replacingOccurrences(of: "\n", with: "\n  "))")
                firstFailure = firstFailure ?? error
            }
        }
        if env.output.format == .json { try env.output.json(outcomes) }
        else if global.verbose {
            env.output.table(Table(headers: ["DOMAIN", "STATUS", "DETAIL"],
                                   rows: outcomes.map { [$0.domain, $0.status, $0.summary ?? $0.error?.split(separator: "\n").first.map(String.init) ?? ""] }))
        }
        if let firstFailure { throw ExitCode(ExitStatus.code(for: firstFailure)) }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
