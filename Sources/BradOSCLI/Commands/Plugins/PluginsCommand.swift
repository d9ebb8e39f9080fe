import ArgumentParser
import BradOSCore
import Foundation

/// `brados plugins`: built-in domains and external `brados-NAME` plugins.
public struct PluginsCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List built-in domains and external plugins (brados-NAME on PATH).",
        discussion: """
        `brados NAME …` runs an executable `brados-NAME` found on PATH when NAME is not \
        built in (built-ins always win), with the remaining arguments, and exits with its \
        code. The plugin gets BRADOS_PROFILE, BRADOS_CACHE_DIR, BRADOS_DATA_DIR, \
        BRADOS_CONFIG_DIR and the configured server URLs (BRADOS_SERVER, BRADOS_<SERVICE>_SERVER).
        Example: examples/brados-hello in the source tree.
        """,
        subcommands: [List.self], defaultSubcommand: List.self)

    public init() {}

}
