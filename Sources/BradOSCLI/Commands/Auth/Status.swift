import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation

extension AuthCommand {
    /// `brados auth status`.
    public struct Status: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "status", 
            abstract: "Show who the profile is signed in as.",
            discussion: "Reads local state only, unless --check asks the server (renewing an expired token). Exits 4 when signed out.\nExamples:\n  brados auth status\n  brados auth status --check --json")
        @Flag(help: "Verify the session with the server.") var check = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Prints who the profile is signed in as, verified with the server with `--check`.
        /// - Throws: ``AuthError/notSignedIn(profile:)`` when signed out (after printing); with `--check`, ``AuthError`` and
        ///   ``NetworkError``; ``ConfigError``, ``StorageError`` (see ``AppEnvironment/live(_:access:)``).
        public func run(in env: AppEnvironment) async throws {
            // Verified first: a renewed token shows in the status.
            let verified = check ? try await AuthService(env).verify() : nil
            var status = AuthService(env).status()
            status.verified = verified
            try AuthRenderer(output: env.output, now: env.now()).status(status)
            // Like `gh auth status`: exit 4 when signed out, in both output formats.
            if !status.signedIn { throw AuthError.notSignedIn(profile: status.profile) }
        }
    }
}
