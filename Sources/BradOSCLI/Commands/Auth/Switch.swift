import ArgumentParser
import BradOSArchive
import BradOSCore
import BradOSStorage
import Foundation

extension AuthCommand {
    /// `brados auth switch`.
    public struct Switch: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static let configuration = CommandConfiguration(commandName: "switch", abstract: "Make another profile the active one.", discussion: """
            A profile that has nothing yet (no sign-in, cache or data) is refused, the nearest \
            name suggested: a typo never makes an empty profile the active one. --create makes a \
            new one active; its first command is then a sign-in (or `cache import --as`).
            Examples:
              brados auth switch work
              brados auth switch --create travel && brados auth login
              brados --profile work cache stats     (one command, without switching)
            """)
        @Argument(help: "The profile name.", completion: .custom { _, _, _ in CompletionValues.profiles() }) var profile: String
        @Flag(help: "Make a profile that has nothing yet the active one.") var create = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Makes another profile the active one and says whether it is signed in.
        /// - Throws: ``ConfigError`` (an invalid profile name, an unreadable config file), ``StorageError`` when the config
        ///   file cannot be written.
        public func run(in env: AppEnvironment) async throws {
            let profile = try Sessions(env).switchProfile(to: self.profile, create: create)
            let signedIn = !env.credentials(of: profile).storedSlots().isEmpty
            struct Document: Encodable { var profile: String; var signedIn: Bool }
            if env.output.format == .json { return try env.output.json(Document(profile: profile.rawValue, signedIn: signedIn)) }
            env.output.line("Active profile: \(profile)\(signedIn ? "" : " (not signed in yet: brados auth login --user NAME --password-stdin)")")
        }
    }
}
