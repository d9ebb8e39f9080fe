import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation

extension AuthCommand {
    /// `brados auth switch`.
    public struct Switch: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static let configuration = CommandConfiguration(commandName: "switch", abstract: "Make another profile the active one.", discussion: "Examples:\n  brados auth switch work\n  brados --profile work cache stats")
        @Argument(help: "The profile name.", completion: .custom { _, _, _ in CompletionValues.profiles() }) var profile: String
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Makes another profile the active one and says whether it is signed in.
        /// - Throws: ``ConfigError`` (an invalid profile name, an unreadable config file), ``StorageError`` when the config
        ///   file cannot be written.
        public func run(in env: AppEnvironment) async throws {
            let profile = try AuthService(env).switchProfile(to: self.profile)
            let signedIn = !env.credentials(of: profile).storedSlots().isEmpty
            if env.output.format == .json { return try env.output.json(["profile": profile.rawValue, "signedIn": "\(signedIn)"]) }
            env.output.line("Active profile: \(profile)\(signedIn ? "" : " (not signed in yet: brados auth login --user NAME --password-stdin)")")
        }
    }
}
