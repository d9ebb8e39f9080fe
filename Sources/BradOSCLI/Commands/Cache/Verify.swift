import AgeEncryption
import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

extension CacheCommand {
    /// `brados cache verify`.
    public struct Verify: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
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
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Refuses `--passphrase-stdin` when standard input carries the archive.
        /// - Throws: `ValidationError`.
        public func validate() throws { try keys.validate(file: file) }

        /// Reads the whole archive, decrypting it if needed, and prints what it holds.
        /// - Throws: ``ArchiveError`` for the first problem found, ``AgeError`` for an encrypted archive no key opens or that
        ///   was changed, ``ConfigError`` for an invalid `archive.*` setting; `CancellationError` when interrupted.
        public func run(in env: AppEnvironment) async throws {
            let (fd, opened) = try CacheArchiveSupport.open(file)
            defer { if opened { close(fd) } }
            let input = try ArchiveInput(fd: fd, decryption: try keys.decryption(profiles: [env.profile.name], env: env))
            let report = try CacheVerifier(limits: try CacheArchiveSupport.limits(env.settings),
                                        dataVersions: Dictionary(env.plugins.map { ($0.name, $0.archive.readableDataVersions) }, uniquingKeysWith: { first, _ in first })).verify(input)
            try ArchiveRenderer(output: env.output).verified(report)
        }
    }
}
