import BradOSCore
import BradOSStorage
import Foundation

/// `brados cache verify`: reads the whole archive and checks every size and checksum.
public struct CacheVerifier: Sendable {
    public struct Report: Codable, Sendable {
        public var profile: String
        public var createdAt: Date
        public var bradosVersion: String
        public var accounts: [String: String]
        public var domains: [CacheArchiveManifest.Domain]
        public var files: Int
        public var bytes: Int64
        /// How the archive is encrypted (`null`: it is not).
        @NullWhenAbsent public var encryption: ArchiveEncryptionInfo?
    }

    public let limits: ArchiveLimits
    /// Each domain's data version this brados reads (its plugins'): an archive whose data it
    /// could not import is not OK.
    public let dataVersions: [String: ClosedRange<Int>]
    public init(limits: ArchiveLimits = ArchiveLimits(), dataVersions: [String: ClosedRange<Int>] = [:]) {
        self.limits = limits
        self.dataVersions = dataVersions
    }

    /// - Parameter decryption: how to open an encrypted archive (asked only if it is one).
    /// - Throws: ``ArchiveError`` for the first problem found, ``AgeEncryption/AgeError`` for
    ///   an encrypted one that cannot be opened or was changed.
    public func verify(fd: Int32, decryption: ArchiveDecryption? = nil) throws -> Report {
        try verify(try ArchiveInput(fd: fd, decryption: decryption))
    }

    /// Reads the whole archive from `input` and checks its manifest and every entry's size and checksum.
    /// - Throws: ``ArchiveError`` for the first problem found, ``AgeError`` for an encrypted one that was changed,
    ///   `CancellationError` when interrupted.
    public func verify(_ input: ArchiveInput) throws -> Report {
        let manifest = try ArchiveScan(limits: limits).run(input, manifestChecked: { try $0.checkDataVersions(dataVersions) })
        return Report(profile: manifest.profile, createdAt: manifest.createdAt, bradosVersion: manifest.bradosVersion,
                      accounts: manifest.accounts, domains: manifest.domains, files: manifest.files.count, bytes: manifest.totalBytes,
                      encryption: input.encryption)
    }
}
