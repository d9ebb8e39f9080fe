import BradOSArchive
import BradOSCore
import Foundation

/// What `cache export`, `cache verify` and `cache import` print, in both output formats.
public struct ArchiveRenderer {
    let output: Output
    public init(output: Output) { self.output = output }

    /// `archive` is nil when the archive went to stdout.
    /// - Throws: ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func exported(_ report: CacheExporter.Report, archive: URL?, archiveBytes: Int64?, compression: ArchiveCompression,
                         encryption: ArchiveEncryption? = nil) throws {
        let encrypted = encryption.map(Self.describe)
        if output.format == .json {
            struct Document: Encodable { var archive: String; var archiveBytes: Int64?; var encryption: String?; var report: CacheExporter.Report }
            return try output.json(Document(archive: archive?.path ?? "-", archiveBytes: archiveBytes, encryption: encrypted, report: report))
        }
        let summary = "Exported \(Format.count(report.files, "file")) (\(Format.bytes(report.bytes))) of \(report.domains.map(\.name).joined(separator: ", "))"
        let how = compression.rawValue + (encrypted.map { ", \($0)" } ?? "")
        guard let archive else { return output.notice(summary + " to stdout (\(how)).") }
        output.line(summary + " to \(archive.path) (\(Format.bytes(archiveBytes ?? 0)), \(how)).")
    }

    /// "age-encrypted to 2 keys (armored)", "age-encrypted with a passphrase".
    static func describe(_ encryption: ArchiveEncryption) -> String {
        let to = encryption.recipients.contains(where: \.isPassphrase) ? "with a passphrase" : "to \(Format.count(encryption.recipients.count, "key"))"
        return "age-encrypted \(to)\(encryption.armor ? ", armored" : "")"
    }

    /// Prints what `cache verify` checked: the archive's profile, encryption and domains, or the report as JSON.
    /// - Throws: ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func verified(_ report: CacheVerifier.Report) throws {
        if output.format == .json { return try output.json(report) }
        output.line("OK: \(Format.count(report.files, "file")), \(Format.bytes(report.bytes)), every size and SHA-256 checked.")
        output.line("  profile \(report.profile), made \(Format.minute(report.createdAt)) by brados \(report.bradosVersion)")
        if let encryption = report.encryption {
            let kinds = encryption.recipientTypes.map { $0 == "scrypt" ? "a passphrase" : $0 == "X25519" ? "\(Format.count(encryption.recipients, "key"))" : $0 }
            output.line("  age-encrypted to \(kinds.joined(separator: ", "))\(encryption.armored ? ", armored" : ""); every chunk authenticated")
        }
        output.table(Table(headers: ["DOMAIN", "FILES", "SIZE", "VERSION"],
                           rows: report.domains.map { [$0.name, "\($0.files)", Format.bytes($0.bytes), "\($0.dataVersion)"] },
                           rightAligned: [1, 2]))
    }

    /// Prints what `cache import` did (or, with `dryRun`, would do) per domain, or the report as JSON.
    /// - Throws: ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func imported(_ report: CacheImporter.Report, dryRun: Bool) throws {
        if output.format == .json { return try output.json(report) }
        output.line((dryRun ? "Would import into" : "Imported into") + " profile \(report.profile) (archive of \(report.archiveProfile)):")
        output.table(Table(headers: ["DOMAIN", "ACTION", "FILES", "SIZE", "NOW"],
                           rows: report.domains.map { [$0.domain, $0.action, "\($0.files)", Format.bytes($0.bytes), "\($0.existingFiles) files, \(Format.bytes($0.existingBytes))"] },
                           rightAligned: [2, 3]))
        if !report.skipped.isEmpty { output.notice("skipped \(report.skipped.joined(separator: ", ")) (not selected, or unknown to this brados)") }
    }
}
