import AgeEncryption
import ArgumentParser
import BradOSArchive
import BradOSCore
import BradOSStorage
import Foundation

extension KeysCommand {
    /// `brados keys generate`.
    public struct Generate: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Create the profile's age key and print its recipient (age1...).",
            discussion: """
                An existing key is never replaced unless --force: archives encrypted to it open only with it.
                --post-quantum makes an ML-KEM-768 + X25519 key (age1pq1..., as age-keygen -pq): archives encrypted \
                to it stay private against a future quantum computer; age 1.3 or later reads them, earlier versions do not.
                Examples:
                  brados keys generate
                  brados keys generate --post-quantum
                  brados --profile work keys generate --json
                """)
        @Flag(help: "Replace an existing key (archives encrypted to it can then no longer be opened with brados).") var force = false
        @Flag(name: [.customLong("post-quantum"), .customLong("pq")], help: "Make a post-quantum hybrid key (age1pq1..., ML-KEM-768 + X25519; age 1.3 or later).")
        var postQuantum = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Creates the profile's age key (replacing one only with `--force`) and prints its recipient.
        /// - Throws: ``ArchiveError/keyExists(profile:recipient:)`` without `--force`; ``StorageError`` or ``ArchiveError``
        ///   when the key file cannot be written; ``ConfigError``.
        public func run(in env: AppEnvironment) async throws {
            let store = ArchiveKeyStore(paths: env.paths, profile: env.profile.name)
            let identity = try store.generate(replace: force, postQuantum: postQuantum, now: env.now())
            try KeysRenderer(output: env.output).show(identity.recipient, store: store, created: true)
        }
    }
}
