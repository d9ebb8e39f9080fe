import ArgumentParser
import BradOSCore

/// `brados visits`: visit history, instant from cache, revalidated behind it.
public struct VisitsCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "visits",
        abstract: "Visit history: instant from cache, revalidated behind it.",
        discussion: """
        A cache younger than `visits.ttl` (5 minutes) prints at once. On a terminal brados \
        then checks for changes and shows them; in scripts and with --json it prints one \
        document and checks in a detached background process. An expired cache is fetched \
        first, falling back to the cached list if the server cannot answer.
        Examples:
          brados visits                          the list (from cache when fresh)
          brados visits --refresh                always ask the server
          brados visits add --place "Riverside Dental" --duration 30
          brados visits delete v_8f3a2c01
          brados config set visits.ttl 10m
        """,
        subcommands: [List.self, Show.self, Add.self, Delete.self, Revalidate.self],
        defaultSubcommand: List.self)

    public init() {}
}
