import AgeEncryption
import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension CacheCommand {
    /// `brados cache export`.
    public struct Export: AsyncParsableCommand {
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "export", 
            abstract: "Write the profile's caches to one verified, compressed archive.",
            discussion: """
            The archive starts with manifest.json (versions, profile, accounts, and every \
            file's size, SHA-256 and mode). Databases are copied through SQLite's online backup. \
            Credentials are never included.
            Encrypted with age (age-encryption.org/v1, opened by brados or by the `age` tool): \
            --recipient age1... (someone's public key, from their `brados keys show`), \
            --encrypt (this profile's own key), or --passphrase. Compressed, encrypted and \
            written in one pass: no unencrypted byte reaches the disk.
            Examples:
              brados cache export                          brados-<profile>-<date>.tar.zst here
              brados cache export -o backup.tar.gz --format tar.gz
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
        @Option(name: .customLong("recipient"), help: ArgumentHelp("Encrypt to this age public key (repeatable).", valueName: "age1...")) var recipients: [String] = []
        @Option(name: .customLong("recipients-file"), help: ArgumentHelp("Encrypt to the age1... lines of this file (repeatable; # comments).", valueName: "file"),
                completion: .file()) var recipientsFiles: [String] = []
        @Flag(help: "Encrypt to this profile's own key (`brados keys generate`); adds to --recipient.") var encrypt = false
        @Flag(help: "Encrypt with a passphrase, asked twice on the terminal (work factor: archive.scrypt-work-factor).") var passphrase = false
        @Flag(help: "With --passphrase: read it from the first line of standard input.") var passphraseStdin = false
        @Flag(help: "Write the encrypted archive as age's armored text (PEM-like) instead of binary.") var armor = false
        @OptionGroup var global: GlobalOptions
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
        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let compression = ArchiveCompression(rawValue: format)!
            let encryption = try encrypted ? ArchiveKeyFlags.encryption(recipients: recipients, files: recipientsFiles, ownKey: encrypt,
                                                                          passphrase: passphrase || passphraseStdin, fromStdin: passphraseStdin,
                                                                          armor: armor, env: env) : nil
            let name = output ?? "brados-\(env.profile.name)-\(Format.day(env.now())).\(compression.rawValue)\(encryption == nil ? "" : ".age")"
            let destination = name == "-" ? nil : URL(fileURLWithPath: name)
            if destination == nil, env.io.isOutputTerminal { throw ValidationError("Refusing to write an archive to a terminal; use -o FILE or a pipe.") }
            let exporter = CacheExporter(profile: env.profile, plugins: env.plugins, accounts: CacheArchiveSupport.accounts(env.credentials.load()),
                                         stagingRoot: CacheArchiveSupport.staging(env.profile.cacheDirectory),
                                         marker: StagingMarker(paths: env.paths), now: env.now)
            let options = CacheExporter.Options(compression: compression, level: level, domains: domains.map(CacheArchiveSupport.list), encryption: encryption)
            guard let destination else {
                let report = try exporter.export(to: STDOUT_FILENO, options: options)
                return try ArchiveRenderer(output: env.output).exported(report, archive: nil, archiveBytes: nil, compression: compression, encryption: encryption)
            }
            let report = try Spinner.showing("exporting (MB)", io: env.io, enabled: env.output.format == .human) { spinner in
                try exporter.export(toFile: destination, overwrite: overwrite, options: options) { done, total in
                    spinner?.update(done: Int(done / 1_000_000), total: Int(total / 1_000_000))
                }
            }
            try ArchiveRenderer(output: env.output).exported(report, archive: destination, archiveBytes: FileSystem.attributes(of: destination)?.size,
                                                             compression: compression, encryption: encryption)
        }
    }

    /// `brados cache verify`.
    public struct Verify: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "verify", 
            abstract: "Read a whole archive and check its manifest and every size and checksum.",
            discussion: """
            Exits 8 on any mismatch, like `restic check --read-data`. Nothing is written. \
            An age-encrypted archive (binary or armored) is recognised and decrypted as it is \
            read: with --identity, the profile's own key, or its passphrase; a wrong key or \
            passphrase exits 12, a changed or cut encrypted file 8.
            Examples:
              brados cache verify backup.tar.zst
              brados cache verify backup.tar.zst.age --identity ~/.config/age/key.txt
              cat backup.tar.zst | brados cache verify -
            """)
        @Argument(help: ArgumentHelp("The archive, or - for stdin.", valueName: "file"), completion: .file(extensions: ["zst", "gz", "age"])) var file: String
        @OptionGroup var keys: ArchiveKeyFlags
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Refuses `--passphrase-stdin` when standard input carries the archive.
        /// - Throws: `ValidationError`.
        public func validate() throws { try keys.validate(file: file) }

        /// Reads the whole archive, decrypting it if needed, and prints what it holds.
        /// - Throws: ``ArchiveError`` for the first problem found, ``AgeError`` for an encrypted archive no key opens or that
        ///   was changed, ``ConfigError`` for an invalid `archive.*` setting; `CancellationError` when interrupted.
        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: nil)
            let (fd, opened) = try CacheArchiveSupport.open(file)
            defer { if opened { close(fd) } }
            let input = try ArchiveInput(fd: fd, decryption: try keys.decryption(profiles: [env.profile.name], env: env))
            let report = try CacheVerifier(limits: try CacheArchiveSupport.limits(env.settings)).verify(input)
            try ArchiveRenderer(output: env.output).verified(report)
        }
    }

    /// `brados cache import`.
    public struct Import: AsyncParsableCommand {
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "import", 
            abstract: "Import an archive into a profile, verified first, swapped in atomically.",
            discussion: """
            Safe with archives from anyone: absolute paths, '..', links, devices, FIFOs, \
            duplicate or unlisted entries, bad checksums and compression bombs are refused \
            before anything is swapped in, and a failed import leaves the profile exactly as it was.
            Data of one account is not imported into a profile signed in to another (--force).
            Changes this profile queued are never dropped by an import: --merge keeps them, \
            --replace refuses unless --discard-pending.
            An age-encrypted archive is decrypted as it is read (--identity FILE, the profile's \
            own key or the --as profile's, or its passphrase); nothing of it is imported unless \
            every chunk authenticates.
            \(Composition.current.plugins.compactMap(\.importDescription).joined(separator: "\n"))
            Examples:
              brados cache import backup.tar.zst --dry-run
              brados cache import backup.tar.zst --replace
              brados cache import backup.tar.zst --as laptop --domains \(HelpExamples.domains(1))
              brados cache import from-alice.tar.zst.age --as alice      (encrypted to your `brados keys show`)
            """) }
        @Argument(help: ArgumentHelp("The archive, or - for stdin.", valueName: "file"), completion: .file(extensions: ["zst", "gz", "age"])) var file: String
        @Option(name: .customLong("as"), help: ArgumentHelp("Import into this profile (default: the current one).", valueName: "profile"),
                completion: .custom { _, _, _ in CompletionValues.profiles() }) var asProfile: String?
        @Flag(help: "The archive's data replaces each domain's current data.") var replace = false
        @Flag(help: "The archive's files are added, overwriting files at the same paths.") var merge = false
        @Flag(help: "Check the archive and say what would change; change nothing.") var dryRun = false
        @Option(help: ArgumentHelp("Only these domains (comma-separated).", valueName: "a,b")) var domains: String?
        @Flag(help: "Import even though the data belongs to another account than the profile's.") var force = false
        @Flag(help: "With --replace: drop changes this profile has queued and not sent (see each domain's note above).") var discardPending = false
        @OptionGroup var keys: ArchiveKeyFlags
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Checks that the flags go together (`--replace` or `--merge`, `--discard-pending` only with `--replace`).
        /// - Throws: `ValidationError`.
        public func validate() throws {
            try keys.validate(file: file)
            if replace && merge { throw ValidationError("--replace and --merge cannot go together.") }
            if discardPending && !replace { throw ValidationError("--discard-pending goes with --replace (--merge keeps every queued change).") }
        }

        /// Imports the archive into the profile (or `--as` another), or with `--dry-run` says what would change.
        /// - Throws: ``ArchiveError``, ``AgeError``, ``StorageError`` (``StorageError/profileBusy(profile:holder:)`` too),
        ///   ``ConfigError``, `CancellationError`, or a domain's refusal of its staged data; the profile is unchanged then.
        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: nil)
            let target = try asProfile.map { env.paths.profile(try ProfileName(validating: $0)) } ?? env.profile
            let (fd, opened) = try CacheArchiveSupport.open(file)
            defer { if opened { close(fd) } }
            // Opened (a passphrase asked for) before the profile is locked and the spinner starts:
            // nobody waits on the lock while a person types.
            let input = try ArchiveInput(fd: fd, decryption: try keys.decryption(profiles: [env.profile.name, target.name], env: env))
            // The profile imported into is the one locked (`--as` names another).
            try await env.lock(target.name, dryRun ? .shared : .exclusive(activity: "importing"))
            let credentials = CredentialStore(paths: env.paths, profile: target.name, logger: env.logger).load()
            let importer = CacheImporter(target: target, plugins: env.plugins, accounts: CacheArchiveSupport.accounts(credentials),
                                         cacheStaging: CacheArchiveSupport.staging(target.cacheDirectory),
                                         dataStaging: CacheArchiveSupport.staging(target.dataDirectory), marker: StagingMarker(paths: env.paths))
            let options = CacheImporter.Options(mode: replace ? .replace : merge ? .merge : nil, dryRun: dryRun,
                                                domains: domains.map(CacheArchiveSupport.list), force: force,
                                                limits: try CacheArchiveSupport.limits(env.settings), discardPending: discardPending)
            // A refused import into a profile that did not exist leaves no empty profile behind.
            let existed = FileSystem.exists(target.cacheDirectory) || FileSystem.exists(target.dataDirectory)
            let report: CacheImporter.Report
            do {
                report = try Spinner.showing(dryRun ? "checking the archive" : "importing", io: env.io, enabled: env.output.format == .human) { _ in
                    try importer.importArchive(from: input, options: options)
                }
            } catch {
                if !existed {
                    FileSystem.removeIfEmpty(target.cacheDirectory)
                    FileSystem.removeIfEmpty(target.dataDirectory)
                }
                throw error
            }
            try ArchiveRenderer(output: env.output).imported(report, dryRun: dryRun)
        }
    }

    /// `brados cache path`.
    public struct Path: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "path", abstract: "Print where the profile's caches and data live.", discussion: "Examples:\n  brados cache path\n  du -sh $(brados cache path)")
        @OptionGroup var global: GlobalOptions
        public init() {}
        /// Prints the profile's cache and data folders, one a line (or as JSON).
        /// - Throws: ``ConfigError`` for an unreadable config file or invalid profile name;
        ///   ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: nil)
            if env.output.format == .json {
                return try env.output.json(["cache": env.profile.cacheDirectory.path, "data": env.profile.dataDirectory.path])
            }
            env.output.line(env.profile.cacheDirectory.path)
            env.output.line(env.profile.dataDirectory.path)
        }
    }
}

/// Helpers shared by the archive commands.
enum CacheArchiveSupport {
    /// The remote account id per service: the account service's, then each service's own.
    static func accounts(_ credentials: CredentialSet) -> [String: String] {
        var accounts: [String: String] = [:]
        if let id = credentials.account?.userID { accounts[Service.account.rawValue] = id }
        for (service, credential) in credentials.services { if let id = credential.userID { accounts[service] = id } }
        return accounts
    }

    /// `<profile folder>/.staging`: inside the profile, so `auth logout` erases whatever a
    /// killed export or import left, and on the same file system as the folders it swaps.
    static func staging(_ profileFolder: URL) -> URL { profileFolder.appendingPathComponent(".staging", isDirectory: true) }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func limits(_ settings: Settings) throws -> ArchiveLimits {
        // Each value passes the rule `config set` applies, or the error names that key and value.
        let bytes = try settings.validated("archive.max-bytes")
        let entries = try settings.validated("archive.max-entries")
        let ratio = try settings.validated("archive.max-ratio")
        return ArchiveLimits(maxBytes: parseByteSize(bytes) ?? 0, maxEntries: Int(entries) ?? 0, maxRatio: Int(ratio) ?? 0)
    }

    /// Opens `path` for reading (`-` is stdin); returns the descriptor and whether to close it.
    static func open(_ path: String) throws -> (Int32, Bool) {
        if path == "-" { return (STDIN_FILENO, false) }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            // The user's own file: never the advice about brados's folders that StorageError gives.
            if errno == ENOENT { throw ArchiveError.noSuchArchive(path: path) }
            throw ArchiveError.io("\(path): \(String(cString: strerror(errno)))")
        }
        return (fd, true)
    }
}
