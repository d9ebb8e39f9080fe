import ArgumentParser
import BradOSCore
import Foundation

/// `brados config`: read and write settings.
public struct ConfigCommand: AsyncParsableCommand {
    public static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "config",
        abstract: "Read and write settings (server URLs, profile, TTLs).",
        discussion: """
        Precedence: flag > environment variable > config file > default.
        Examples:
          brados config set server http://127.0.0.1:8080
          brados config set \(HelpExamples.serviceKey) http://192.168.1.20:8080
          brados config list
        """,
        subcommands: [Get.self, Set.self, Unset.self, List.self, Path.self]) }

    public init() {}
}

