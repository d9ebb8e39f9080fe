import ArgumentParser
import BradOSAuth
import BradOSCore
import Foundation

extension AuthCommand {
    /// `brados auth migrate --to keyring|file`.
    public struct Migrate: EnvironmentCommand {
        public static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Move the profile's secrets to the system keyring, or to files.",
            discussion: """
            Each secret is written where it goes and read back before the copy it came from is \
            removed, so a run that stops halfway loses nothing; run it again to finish. Moving to \
            the keyring leaves no secret in a file (the credentials file keeps only the index of \
            what is in the keyring). Set `credentials.store` too, so new secrets go the same way.
            Examples:
              brados auth migrate --to keyring
              brados auth migrate --to file --all
              brados config set credentials.store keyring
            """)

        @Option(help: ArgumentHelp("Where the secrets go: keyring or file.", valueName: "store"),
                completion: .list(["keyring", "file"]))
        var to: String
        @Flag(help: "Every profile with secrets, not only this one.") var all = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Checks `--to`.
        /// - Throws: `ValidationError` for anything but keyring or file.
        public func validate() throws {
            if SecretLocation(rawValue: to) == nil { throw ValidationError("Invalid --to '\(to)': expected keyring or file.") }
        }

        /// Moves the secrets and prints what moved.
        /// - Throws: ``AuthError/keyring(_:)`` when the keyring does not answer or is locked, ``StorageError``.
        public func run(in env: AppEnvironment) async throws {
            let auth = Sessions(env)
            let profiles = all ? auth.profilesWithSecrets(including: env.profile.name) : [env.profile.name]
            let reports = try await auth.migrate(to: SecretLocation(rawValue: to)!, profiles: profiles)
            try AuthRenderer(output: env.output, now: env.now()).migrated(reports)
            if env.credentialStoreChoice.rawValue != to && env.credentialStoreChoice != .auto {
                env.output.notice("credentials.store is \(env.credentialStoreChoice.rawValue): new secrets still go there (brados config set credentials.store \(to)).")
            }
        }
    }
}
