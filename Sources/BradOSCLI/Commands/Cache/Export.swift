import AgeEncryption
import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
import BradOSTerminal
#endif

extension CacheCommand {
    /// `brados cache export`.
    public struct Export: EnvironmentCommand {
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "export", 
            abstract: "Write the profile's caches to one verified, compressed archive.",
            discussion: """
            The archive starts with manifest.json (versions, profile, accounts, and every \
            file's size, SHA-256 and mode). Databases are copied through SQLite's online backup. \
            Credentials are never included.
            Encrypted with age (age-encryption.org/v1, opened by brados or by the `age` tool): \
            --recipient age1... (someone's public key, from their `brados keys show`), \
            --encrypt (this profile's own key), or --passphrase. A post-quantum recipient \
            (age1pq1..., ML-KEM-768 + X25519, from `keys generate --post-quantum` or age-keygen -pq) \
            keeps the archive private against a future quantum computer; it cannot be mixed with \
            classic age1... recipients, and opens with brados or age 1.3 and later. Compressed, \
            encrypted and written in one pass: no unencrypted byte reaches the disk.
            With -o - the archive is all stdout carries: the report (--json too) goes to stderr.
            Examples:
              brados cache export                          brados-<profile>-<date>.tar.zst here
              brados cache export -o backup.tar.gz --format tar.gz
              brados cache export --with-settings --encrypt   (for a new laptop: settings too)
              brados cache export --encrypt                brados-<profile>-<date>.tar.zst.age
              brados cache export --recipient "$(cat bob.txt)" -o for-bob.tar.zst.age   (bob.txt: his `keys show` line)
              printf %s "$PASS" | brados cache export --passphrase-stdin --armor -o backup.age
              brados cache export --domains \(HelpExamples.domains(2, separator: ",")) -o - | ssh laptop 'brados cache import -'
            """) }

        @Option(name: .shortAndLong, help: ArgumentHelp("The archive to write, or - for stdout.", valueName: "file")) var output: String?
        @Option(help: ArgumentHelp("tar.zst (default) or tar.gz.", valueName: "format")) var format: String = ArchiveCompression.zstd.rawValue
        @Option(help: ArgumentHelp("Compression level (zstd 1-19, default 3; gzip 1-9, default 6).", valueName: "n")) var level: Int?
        @Option(help: ArgumentHelp("Only these domains (comma-separated).", valueName: "a,b")) var domains: String?
        @Flag(help: "Replace the output file if it exists.") var overwrite = false
        @Flag(help: "Carry this machine's settings (`brados config list`; never a secret) for the import to apply.") var withSettings = false
        @Option(name: .customLong("recipient"), help: ArgumentHelp("Encrypt to this age public key, age1... or age1pq1... (repeatable).", valueName: "age1...")) var recipients: [String] = []
        @Option(name: .customLong("recipients-file"), help: ArgumentHelp("Encrypt to the age1... and age1pq1... lines of this file (repeatable; # comments).", valueName: "file"),
                completion: .file()) var recipientsFiles: [String] = []
        @Flag(help: "Encrypt to this profile's own key (`brados keys generate`); adds to --recipient.") var encrypt = false
        @Flag(help: "Encrypt with a passphrase, asked twice on the terminal (work factor: archive.scrypt-work-factor).") var passphrase = false
        @Flag(help: "With --passphrase: read it from the first line of standard input.") var passphraseStdin = false
        @Flag(help: "Write the encrypted archive as age's armored text (PEM-like) instead of binary.") var armor = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        var encrypted: Bool { !recipients.isEmpty || !recipientsFiles.isEmpty || encrypt || passphrase || passphraseStdin }

        /// Checks `--format`, `--level` and that the encryption flags go together.
        /// - Throws: `ValidationError` for an unknown format, a level out of range, or flags that do not go together.
        public func validate() throws {
            guard let compression = ArchiveCompression(rawValue: format) else { throw ValidationError("--format must be tar.zst or tar.gz.") }
            if let level, !compression.levels.contains(level) {
                throw ValidationError("--level for \(format) must be \(compression.levels.lowerBound)-\(compression.levels.upperBound).")
            }
            if passphrase || passphraseStdin, !recipients.isEmpty || !recipientsFiles.isEmpty || encrypt {
                throw ValidationError("--passphrase goes alone: age allows a passphrase only as the one recipient (drop --recipient, --recipients-file and --encrypt).")
            }
            if armor, !encrypted { throw ValidationError("--armor goes with encryption (--recipient, --encrypt or --passphrase).") }
        }

        /// Writes the archive (to a file, or to standard output with `-o -`), encrypted when asked, and says what it holds.
        /// - Throws: ``ArchiveError`` (bad keys, an existing file without `--overwrite`, a failed write), ``StorageError``,
        ///   ``ConfigError``, ``AgeError``; `ValidationError` for an archive to a terminal; `CancellationError` when interrupted.
        public func run(in env: AppEnvironment) async throws {
            let compression = ArchiveCompression(rawValue: format)!
            let encryption = try encrypted ? ArchiveKeyFlags.encryption(recipients: recipients, files: recipientsFiles, ownKey: encrypt,
                                                                          passphrase: passphrase || passphraseStdin, fromStdin: passphraseStdin,
                                                                          armor: armor, env: env) : nil
            let name = output ?? "brados-\(env.profile.name)-\(Format.day(env.now())).\(compression.rawValue)\(encryption == nil ? "" : ".age")"
            let destination = name == "-" ? nil : URL(fileURLWithPath: name)
            if destination == nil, env.io.isOutputTerminal { throw ValidationError("Refusing to write an archive to a terminal; use -o FILE or a pipe.") }
            let exporter = CacheExporter(profile: env.profile, plugins: env.plugins, accounts: env.credentials.load().accounts,
                                         stagingRoot: CacheArchiveSupport.staging(env.profile.cacheDirectory),
                                         marker: StagingMarker(paths: env.paths), now: env.now)
            let options = CacheExporter.Options(compression: compression, level: level, domains: domains.map(CacheArchiveSupport.list), encryption: encryption,
                                                settings: withSettings ? try CacheArchiveSupport.exportedSettings(env) : nil)
            guard let destination else {
                let report = try OperationLog.measure("cache.export", logger: env.logger) { try exporter.export(to: STDOUT_FILENO, options: options) }
                // stdout is the archive: the report (--json too) goes to stderr, never after its bytes.
                return try ArchiveRenderer(output: env.output.onStandardError).exported(report, archive: nil, archiveBytes: nil,
                                                                                       compression: compression, encryption: encryption)
            }
            let report = try Spinner.showing("exporting (MB)", io: env.io, enabled: env.output.format == .human) { spinner in
                try OperationLog.measure("cache.export", logger: env.logger) {
                    try exporter.export(toFile: destination, overwrite: overwrite, options: options) { done, total in
                        spinner?.update(done: Int(done / 1_000_000), total: Int(total / 1_000_000))
                    }
                }
            }
            try ArchiveRenderer(output: env.output).exported(report, archive: destination, archiveBytes: FileSystem.attributes(of: destination)?.size,
                                                             compression: compression, encryption: encryption)
        }
    }
}
