import AgeEncryption
import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation

/// `brados keys`: the profile's age key, for encrypted cache archives.
public struct KeysCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "The profile's age key, for encrypted cache archives.",
        discussion: """
        A profile's key is an age X25519 identity (AGE-SECRET-KEY-1...) kept in the config \
        folder, 0600, never in a cache or an archive. Its recipient (age1...) is public: give it \
        to whoever should send you an archive. The key file is an age identity file, so the \
        standard `age -d -i FILE` opens your archives too.
        Examples:
          brados keys generate
          brados keys show                  the age1... line to give to someone
          brados cache export --encrypt     an archive only this profile's key opens
        """,
        subcommands: [Generate.self, Show.self])
    public init() {}

}

