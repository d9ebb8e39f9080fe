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
    /// `brados cache import`.
    public struct Import: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "import", 
            abstract: "Import an archive into a profile, verified first, swapped in atomically.",
            discussion: """
            Safe with archives from anyone: absolute paths, '..', links, devices, FIFOs, \
            duplicate or unlisted entries, bad checksums and compression bombs are refused \
            before anything is swapped in, and a failed import leaves the profile exactly as it was.
            Data of one account is not imported into a profile signed in to another (--force).
            Changes this profile queued are never dropped by an import: --merge keeps them, \
            --replace refuses unless --discard-pending.
            Settings come only in an archive made with `cache export --with-settings`, and set \
            only what this machine does not set already. Never in an archive: the sign-in, \
            keyring secrets and the archive key; the import ends by saying how to bring them.
            An age-encrypted archive is decrypted as it is read (--identity FILE, the profile's \
            own key or the --as profile's, or its passphrase); nothing of it is imported unless \
            every chunk authenticates.
            \(Composition.current.helpText("cache import") { Composition.current.plugins.compactMap(\.archive.importDescription).joined(separator: "\n") })
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
        @Flag(help: "Keep the newer of each item (this profile's or the archive's) and both sides' histories; --dry-run says what per domain.") var merge = false
        @Flag(help: "Check the archive and say what would change; change nothing.") var dryRun = false
        @Option(help: ArgumentHelp("Only these domains (comma-separated).", valueName: "a,b")) var domains: String?
        @Flag(help: "Import even though the data belongs to another account than the profile's.") var force = false
        @Flag(help: "With --replace: drop changes this profile has queued and not sent (see each domain's note above).") var discardPending = false
        @Flag(help: "Wait for another brados that holds the profile (a running sync --watch) as long as it takes, not profile.lock-timeout.")
        var wait = false
        public var waitsForProfile: Bool { wait }
        @OptionGroup var keys: ArchiveKeyFlags
        @OptionGroup public var global: GlobalOptions
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
        public func run(in env: AppEnvironment) async throws {
            let target = try asProfile.map { env.paths.profile(try ProfileName(validating: $0)) } ?? env.profile
            let (fd, opened) = try CacheArchiveSupport.open(file)
            defer { if opened { close(fd) } }
            // Opened (a passphrase asked for) before the profile is locked and the spinner starts:
            // nobody waits on the lock while a person types.
            let input = try ArchiveInput(fd: fd, decryption: try keys.decryption(profiles: [env.profile.name, target.name], env: env))
            // The profile imported into is the one locked (`--as` names another).
            try await env.lock(target.name, dryRun ? .shared : .exclusive(activity: "importing"), waitForever: wait)
            let credentials = env.credentials(of: target.name).load()
            let importer = CacheImporter(target: target, plugins: env.plugins, features: env.features, accounts: credentials.accounts,
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
                    try OperationLog.measure(dryRun ? "cache.import-check" : "cache.import", logger: env.logger) { try importer.importArchive(from: input, options: options) }
                }
            } catch {
                if !existed {
                    FileSystem.removeIfEmpty(target.cacheDirectory)
                    FileSystem.removeIfEmpty(target.dataDirectory)
                    if !dryRun { ProfileLock.discard(profile: target.name, paths: env.paths) }
                }
                throw error
            }
            let settings = dryRun ? nil : try report.settings.map { try CacheArchiveSupport.importSettings($0, env: env) }
            try ArchiveRenderer(output: env.output).imported(report, dryRun: dryRun, settings: settings,
                                                             hasKey: FileSystem.exists(ArchiveKeyStore(paths: env.paths, profile: target.name).url))
        }
    }
}
