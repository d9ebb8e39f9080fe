import AgeEncryption
import ArgumentParser
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

    /// `brados keys generate`.
    public struct Generate: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Create the profile's age key and print its recipient (age1...).",
            discussion: "An existing key is never replaced unless --force: archives encrypted to it open only with it.\nExamples:\n  brados keys generate\n  brados --profile work keys generate --json")
        @Flag(help: "Replace an existing key (archives encrypted to it can then no longer be opened with brados).") var force = false
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Creates the profile's age key (replacing one only with `--force`) and prints its recipient.
        /// - Throws: ``ArchiveError/keyExists(profile:recipient:)`` without `--force`; ``StorageError`` or ``ArchiveError``
        ///   when the key file cannot be written; ``ConfigError``.
        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: nil)
            let store = ArchiveKeyStore(paths: env.paths, profile: env.profile.name)
            let identity = try store.generate(replace: force, now: env.now())
            try KeysRenderer(output: env.output).show(identity.recipient, store: store, created: true)
        }
    }

    /// `brados keys show`.
    public struct Show: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the profile's recipient (age1...), to give to whoever sends you archives.",
            discussion: "Examples:\n  brados keys show\n  brados keys show --json | jq -r .recipient")
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Prints the recipient (age1...) of the profile's age key.
        /// - Throws: ``ArchiveError/noKey(profile:)`` when the profile has none, ``ArchiveError/invalidKeys(source:detail:)`` for
        ///   a damaged key file; ``StorageError``, ``ConfigError``.
        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: nil)
            let store = ArchiveKeyStore(paths: env.paths, profile: env.profile.name)
            guard let identity = try store.load() else { throw ArchiveError.noKey(profile: env.profile.name.rawValue) }
            try KeysRenderer(output: env.output).show(identity.recipient, store: store, created: false)
        }
    }
}

/// What `keys generate|show` print.
struct KeysRenderer {
    let output: Output

    func show(_ recipient: X25519Recipient, store: ArchiveKeyStore, created: Bool) throws {
        if output.format == .json {
            struct Document: Encodable { var profile: String; var recipient: String; var identityFile: String; var created: Bool }
            return try output.json(Document(profile: store.profile.rawValue, recipient: recipient.string, identityFile: store.url.path, created: created))
        }
        output.line(recipient.string)
        if created {
            output.notice("created the age key of profile '\(store.profile)' in \(store.url.path) (0600); back it up: archives encrypted to it open only with it")
        }
    }
}
