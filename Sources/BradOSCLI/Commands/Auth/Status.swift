import ArgumentParser
import BradOSArchive
import BradOSAuth
import BradOSCore
import Foundation

extension AuthCommand {
    /// `brados auth status`.
    public struct Status: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "status", 
            abstract: "Show who the profile is signed in as, and where its secrets live.",
            discussion: """
                Reads local state only, unless --check asks the server (renewing an expired token). \
                Each secret is in the keyring or a file (credentials.store; move them with `brados auth migrate`). \
                Exits 4 when signed out (with --all: when no profile is signed in).
                Examples:
                  brados auth status
                  brados auth status --check --json
                  brados auth status --all
                """)
        @Flag(help: "Verify the session with the server.") var check = false
        @Flag(help: "Every profile with credentials, not only this one (--json: an array).") var all = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            if all, check { throw ValidationError("--check verifies one profile's session: drop --all, or run it with --profile NAME.") }
        }

        /// Prints who the profile is signed in as, verified with the server with `--check`.
        /// - Throws: ``AuthError/notSignedIn(profile:)`` when signed out (after printing); with `--check`, ``AuthError`` and
        ///   ``NetworkError``; ``ConfigError``, ``StorageError`` (see ``AppEnvironment/live(_:access:)``).
        public func run(in env: AppEnvironment) async throws {
            if all {
                let auth = Sessions(env)
                let statuses = auth.profilesWithSecrets(including: env.profile.name).map { auth.status(of: $0) }
                try AuthRenderer(output: env.output, now: env.now()).statuses(statuses)
                if !statuses.contains(where: \.signedIn) { throw AuthError.notSignedIn(profile: env.profile.name.rawValue) }
                return
            }
            // Verified first: a renewed token shows in the status.
            let verified = check ? try await Sessions(env).verify() : nil
            var status = Sessions(env).status()
            status.verified = verified
            try AuthRenderer(output: env.output, now: env.now()).status(status)
            // Like `gh auth status`: exit 4 when signed out, in both output formats.
            if !status.signedIn { throw AuthError.notSignedIn(profile: status.profile) }
        }
    }
}
