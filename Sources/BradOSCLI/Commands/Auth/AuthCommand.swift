import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation

/// `brados auth`: sign in and out of a profile.
public struct AuthCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Sign in, check, switch and sign out profiles.",
        discussion: """
        Secrets live in the system keyring when one answers, else in the config directory \
        (mode 0600), never in the cache (`credentials.store`; `auth status` says where). \
        Signing out erases every cache of the profile.
        Examples:
          echo PASSWORD | brados auth login --user demo --password-stdin
          brados auth status --check
          brados auth switch work
          brados auth logout
        """,
        subcommands: [Login.self, Status.self, Switch.self, Migrate.self, Logout.self])

    public init() {}
}

