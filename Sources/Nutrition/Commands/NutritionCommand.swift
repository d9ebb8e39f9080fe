import ArgumentParser
import BradOSCore
import BradOSPictures

/// `brados plan`: the nutrition plan.
public struct NutritionCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Your nutrition plan: daily targets, cached for an hour, with an offline queue.",
        discussion: """
        Within half of `plan.ttl` (1 hour) the cached plan prints with no request. Past \
        half, a terminal sees it at once and again if the refresh before brados exits changed \
        it (a script or --json waits for the refreshed plan: one document); past the TTL it is \
        fetched, and if the service cannot be reached the cached plan is shown with a \
        notice. A plan whose targets fail validation is never cached.
        Changes to your weight, target weight, goal and activity are queued on disk before \
        anything is sent, shown at once marked pending, and `plan sync` sends them in order; \
        a change the service refuses is rolled back. Every plan received is kept (the last \
        100), to list and compare.
        Examples:
          brados plan                       calories, protein, water, weekly rate
          brados plan targets               the same with BMR and TDEE
          brados plan why                   why these numbers work
          brados plan weight 84.5           update your weight, then recompute
          brados plan set goal maintain     change your goal (or target-weight, activity)
          brados plan history               the weights logged, newest first
          brados plan history --plans       the plans kept
          brados plan diff                  what changed between the last two plans
          brados --offline plan weight 84   queue it for later
          brados plan pending               what is queued
          brados plan sync                  send the queue, in order
        """,
        subcommands: [Show.self, Targets.self, Why.self, Recompute.self, Refresh.self, Weight.self, SetInput.self, History.self, Diff.self,
                      Pending.self, Sync.self, Revalidate.self],
        defaultSubcommand: Show.self)

    public init() {}

    /// Shows the current plan in a view (shared by show, targets and why), by the plan's
    /// cache policy: on a terminal a cached plan due a refresh shows at once and a changed one
    /// is shown again; a script gets one document.
    static func present(_ view: NutritionRenderer.View, in env: AppEnvironment, art: ArtOptions? = nil) async throws {
        let repository = try NutritionRepository.live(env)
        // The summary draws the weights; the summary and the targets show estimates for what is queued.
        let trend = try view != .why
            ? NutritionRenderer.Trend(choice: env.art(art, askTerminal: false), area: env.artArea, queued: repository.queued, now: env.now()) : nil
        let shown = try await env.reader.show(repository.currentPlan, with: NutritionRenderer(output: env.output, trend: trend).presenter(view)).shown
        // `brados today` tells of a significant change since the targets last shown here.
        NutritionPlugin.rememberShown(shown.data.targets, in: env)
    }
}
