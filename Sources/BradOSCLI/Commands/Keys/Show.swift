import AgeEncryption
import ArgumentParser
import BradOSArchive
import BradOSCore
import BradOSStorage
import Foundation

extension KeysCommand {
    /// `brados keys show`.
    public struct Show: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the profile's recipient (age1... or age1pq1...), to give to whoever sends you archives.",
            discussion: "Examples:\n  brados keys show\n  brados keys show --json | jq -r .recipient")
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Prints the recipient (age1...) of the profile's age key.
        /// - Throws: ``ArchiveError/noKey(profile:)`` when the profile has none, ``ArchiveError/invalidKeys(source:detail:)`` for
        ///   a damaged key file; ``StorageError``, ``ConfigError``.
        public func run(in env: AppEnvironment) async throws {
            let store = ArchiveKeyStore(paths: env.paths, profile: env.profile.name)
            guard let identity = try store.load() else { throw ArchiveError.noKey(profile: env.profile.name.rawValue) }
            try KeysRenderer(output: env.output).show(identity.recipient, store: store, created: false)
        }
    }
}
