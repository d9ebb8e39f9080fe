import ArgumentParser
import BradOSCore

/// `brados mealplan`: the latest finalized meal plan, from the disk cache when present.
public struct MealPlanCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "mealplan",
        abstract: "The latest finalized meal plan, cached on disk and never re-fetched.",
        discussion: """
        A finalized plan never changes, so once cached it is served with no request at all \
        (also with --offline). `new` starts a draft, `critique` revises it, `finalize` caches it.
        Examples:
          brados mealplan                     the week, from cache when present
          brados mealplan today               today's meals
          brados mealplan new && brados mealplan critique "no fish" && brados mealplan finalize
          brados mealplan refresh             drop the cache and fetch again
          jq .session.days "$(brados mealplan path)"
        """,
        subcommands: [Show.self, Today.self, Refresh.self, New.self, Critique.self, Finalize.self, Status.self, Path.self],
        defaultSubcommand: Show.self)

    public init() {}
}
