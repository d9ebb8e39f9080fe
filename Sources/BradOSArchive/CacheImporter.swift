import BradOSCore
import BradOSStorage
import Foundation

/// `brados cache import`: safety first, for archives from anyone.
///
/// Every entry is checked (see ``ArchiveScan``) and extracted into staging directories beside
/// the profile's folders; only once the whole archive verified are domains swapped in, each by
/// `rename`. Any failure before or during the swap puts everything back: the existing cache is
/// left exactly as it was. Data of one remote account is never imported into a profile signed
/// in to another unless forced.
public struct CacheImporter: Sendable {
    public struct Options: Sendable {
        public var mode: ImportMode?
        public var dryRun: Bool
        public var domains: [String]?
        public var force: Bool
        public var limits: ArchiveLimits
        /// `--discard-pending`: replacing may drop changes the target has not sent yet.
        public var discardPending: Bool

        public init(mode: ImportMode? = nil, dryRun: Bool = false, domains: [String]? = nil, force: Bool = false, limits: ArchiveLimits = ArchiveLimits(),
                    discardPending: Bool = false) {
            self.discardPending = discardPending
            self.mode = mode
            self.dryRun = dryRun
            self.domains = domains
            self.force = force
            self.limits = limits
        }
    }

    public struct DomainChange: Codable, Sendable, Equatable {
        public var domain: String
        /// `add` (nothing there yet), `replace` or `merge`.
        public var action: String
        public var files: Int
        public var bytes: Int64
        public var existingFiles: Int
        public var existingBytes: Int64
        /// With `merge`: what it keeps of the profile's and takes from the archive, item by
        /// item (``MergesByItem``), or that the archive's files overwrite those at the same paths.
        @NullWhenAbsent public var merged: [String]? = nil
    }

    public struct Report: Codable, Sendable {
        public var profile: String
        public var archiveProfile: String
        public var dryRun: Bool
        public var domains: [DomainChange]
        /// Domains in the archive this brados does not have (or not asked for).
        public var skipped: [String]
        /// The settings the archive carries (`cache export --with-settings`), `nil` when none.
        @NullWhenAbsent public var settings: [String: String]?
    }

    public let target: ProfileScope
    public let plugins: [any DomainPlugin]
    /// The target profile's remote account id per service.
    public let accounts: [String: String]
    /// Roots for staging, on the same file systems as the profile's cache and data folders.
    public let cacheStaging: URL
    public let dataStaging: URL
    /// Held while staging folders exist, so that the next command recovers after a kill
    /// (``CacheImportRecovery/recoverIfMarked(_:)``); `nil`: none (tests that recover by hand).
    public let marker: StagingMarker?
    /// Told which domains were replaced (``Feature/forget(domains:in:)``): the search index
    /// frees their old documents.
    public let features: [any Feature]

    public init(target: ProfileScope, plugins: [any DomainPlugin], features: [any Feature] = [], accounts: [String: String],
                cacheStaging: URL, dataStaging: URL, marker: StagingMarker? = nil) {
        self.marker = marker
        self.features = features
        self.target = target
        self.plugins = plugins
        self.accounts = accounts
        self.cacheStaging = cacheStaging
        self.dataStaging = dataStaging
    }

    /// Imports (or, with `dryRun`, only checks and describes) the archive read from `fd`, in
    /// four phases: ``validateAndExtract(_:options:into:)`` (one streaming pass: the manifest,
    /// then every entry checked and written to staging), ``describe(_:options:)`` (what would
    /// change), ``check(_:manifest:options:staging:)`` (each domain checks its staged data) and
    /// ``swap(_:options:staging:)`` (journaled renames, all or nothing).
    /// - Throws: ``ArchiveError``, ``StorageError``; the profile is unchanged then.
    public func importArchive(from fd: Int32, options: Options) throws -> Report {
        try importArchive(from: try ArchiveInput(fd: fd, decryption: nil), options: options)
    }

    /// Imports an archive opened with ``ArchiveInput`` (an encrypted one, decrypted as it is read).
    /// - Throws: ``ArchiveError``, ``StorageError``, ``AgeError`` for an encrypted archive that was changed, `CancellationError`
    ///   when interrupted before the swap, or what a plugin's ``DomainPlugin/prepareImport(cache:data:context:)`` throws;
    ///   the profile is unchanged then.
    public func importArchive(from input: ArchiveInput, options: Options) throws -> Report {
        let hold = try marker?.hold()
        defer { hold?.finish() }
        let staging = try Staging(cacheStaging: cacheStaging, dataStaging: dataStaging)
        defer { staging.finish() }
        let extracted = try validateAndExtract(input, options: options, into: staging)
        var changes = try describe(extracted, options: options)
        let occupied = changes.filter { $0.action != "add" }.map(\.domain)
        if options.mode == nil, !occupied.isEmpty, !options.dryRun { throw ArchiveError.targetNotEmpty(domains: occupied) }
        try Task.checkCancellation()
        changes = try check(changes, manifest: extracted.manifest, options: options, staging: staging)
        let report = Report(profile: target.name.rawValue, archiveProfile: extracted.manifest.profile, dryRun: options.dryRun,
                            domains: changes, skipped: extracted.skipped, settings: extracted.manifest.settings)
        // A dry run has now checked what a real import would: nothing moves.
        if options.dryRun { return report }
        // Every extracted and rebuilt file, and its folder, is on the disk before the first
        // rename: after the swap commits, a power cut cannot leave a renamed, empty file.
        try staging.sync()
        // The last point at which an interrupted import (Ctrl-C, SIGTERM, SIGHUP) stops: the
        // swap is short and journaled, and once it starts the import finishes.
        try Task.checkCancellation()
        // With it, whose data it is (for the labels of another account's data), in the same journal.
        try swap(changes, options: options, staging: staging,
                 record: .init(domains: changes.map(\.domain), fromProfile: extracted.manifest.profile, accounts: extracted.manifest.accounts,
                               archiveCreatedAt: extracted.manifest.createdAt))
        return report
    }
}
