import ArgumentParser
import BradOSCore

/// `brados plan`: the nutrition plan.
public struct PlanCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Your nutrition plan: daily targets, cached for an hour, with an offline queue.",
        discussion: """
        Within half of `plan.ttl` (1 hour) the cached plan prints with no request. Past \
        half, it prints at once and is refreshed before brados exits; past the TTL it is \
        fetched, and if the service cannot be reached the cached plan is shown with a \
        notice. A plan whose targets fail validation is never cached.
        Weight changes made offline are queued on disk before anything is sent, and \
        `plan sync` sends them in order.
        Examples:
          brados plan                       calories, protein, water, weekly rate
          brados plan targets               the same with BMR and TDEE
          brados plan why                   why these numbers work
          brados plan weight 84.5           update your weight, then recompute
          brados --offline plan weight 84   queue it for later
          brados plan pending               what is queued
          brados plan sync                  send the queue, in order
        """,
        subcommands: [Show.self, Targets.self, Why.self, Recompute.self, Refresh.self, Weight.self, Pending.self, Sync.self],
        defaultSubcommand: Show.self)

    public init() {}

    /// Shows the current plan in a view (shared by show, targets and why), by the plan's
    /// cache policy: on a terminal a cached plan due a refresh shows at once and a changed one
    /// is shown again; a script gets one document.
    static func present(_ view: PlanRenderer.View, global: GlobalOptions) async throws {
        let env = try await AppEnvironment.live(global)
        let store = try PlanStore.live(env)
        let renderer = PlanRenderer(output: env.output)
        let interactive = env.output.format == .human
        try await store.read(mode: interactive ? .interactive : .script, io: env.io,
                             render: { try renderer.render($0, view: view) },
                             rerender: { try renderer.rerender($0, view: view) },
                             notice: env.output.notice)
    }
}

extension PlanCommand {
    public struct Show: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the plan's daily targets (from the cache within the TTL).", discussion: "Examples:\n  brados plan\n  brados plan show --json")
        @OptionGroup var global: GlobalOptions
        public init() {}
        public func run() async throws { try await PlanCommand.present(.summary, global: global) }
    }

    public struct Targets: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "targets", abstract: "Show every target, BMR and TDEE included.", discussion: "Examples:\n  brados plan targets")
        @OptionGroup var global: GlobalOptions
        public init() {}
        public func run() async throws { try await PlanCommand.present(.targets, global: global) }
    }

    public struct Why: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "why", abstract: "Explain why the targets work, with the science behind them.", discussion: "Examples:\n  brados plan why")
        @OptionGroup var global: GlobalOptions
        public init() {}
        public func run() async throws { try await PlanCommand.present(.why, global: global) }
    }

    public struct Recompute: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "recompute", abstract: "Ask the service to compute the plan again (forceRecompute).", discussion: "Examples:\n  brados plan recompute")
        @OptionGroup var global: GlobalOptions
        public init() {}
        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try PlanStore.live(env)
            let result = try await Spinner.run("Recomputing your plan", io: env.io, enabled: env.output.format == .human) { try await store.recompute() }
            try PlanRenderer(output: env.output).render(result, view: .summary)
        }
    }

    public struct Refresh: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "refresh", 
            abstract: "Fetch the plan, ignoring the cache (which is replaced only by a valid answer).", discussion: "Examples:\n  brados plan refresh")
        @OptionGroup var global: GlobalOptions
        public init() {}
        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let store = try PlanStore.live(env)
            let result = try await Spinner.run("Fetching your plan", io: env.io, enabled: env.output.format == .human) { try await store.refresh() }
            try PlanRenderer(output: env.output).render(result, view: .summary)
        }
    }
}
