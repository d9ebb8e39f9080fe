import BradOSArchive
import BradOSCore
import BradOSStorage
import BradOSTerminal
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
            struct Document: Encodable {
                var archive: String
                @NullWhenAbsent var archiveBytes: Int64?
                @NullWhenAbsent var encryption: String?
                var report: CacheExporter.Report
            }
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
        output.line("  profile \(report.profile), made \(output.forms.minute(report.createdAt)) by brados \(report.bradosVersion)")
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
    /// - Parameters:
    ///   - settings: what the archive's settings did here (`nil`: it carried none, or a dry run).
    ///   - hasKey: whether the profile imported into has an archive key of its own.
    func imported(_ report: CacheImporter.Report, dryRun: Bool, settings: CacheArchiveSupport.SettingsImport? = nil, hasKey: Bool = true) throws {
        if output.format == .json {
            // The report's keys, then what the settings did (null: none applied) and what never comes in an archive.
            struct Document: Encodable {
                var report: CacheImporter.Report
                var settings: CacheArchiveSupport.SettingsImport?
                var notBrought: [String]
                enum Keys: String, CodingKey { case settingsImport, notBrought }
                func encode(to encoder: any Encoder) throws {
                    try report.encode(to: encoder)
                    var container = encoder.container(keyedBy: Keys.self)
                    try container.encode(settings, forKey: .settingsImport)
                    try container.encode(notBrought, forKey: .notBrought)
                }
            }
            return try output.json(Document(report: report, settings: settings, notBrought: Self.notBrought(settings: report.settings != nil)))
        }
        output.line((dryRun ? "Would import into" : "Imported into") + " profile \(report.profile) (archive of \(report.archiveProfile)):")
        output.table(Table(headers: ["DOMAIN", "ACTION", "FILES", "SIZE", "NOW"],
                           rows: report.domains.map { [$0.domain, $0.action, "\($0.files)", Format.bytes($0.bytes), "\($0.existingFiles) files, \(Format.bytes($0.existingBytes))"] },
                           rightAligned: [2, 3]))
        for change in report.domains {
            for line in change.merged ?? [] { output.line("  \(change.domain): \(line)") }
        }
        if !report.skipped.isEmpty { output.notice("skipped \(report.skipped.joined(separator: ", ")) (not selected, or unknown to this brados)") }
        guard !dryRun else { return }
        if let settings {
            if !settings.applied.isEmpty { output.line("Settings set from the archive: " + settings.applied.keys.sorted().joined(separator: ", ") + ".") }
            if !settings.kept.isEmpty {
                output.notice("kept this machine's " + settings.kept.keys.sorted().joined(separator: ", ")
                              + " (the archive's differ: `brados config set KEY VALUE` to take one)")
            }
            if !settings.refused.isEmpty { output.notice("left out settings this brados does not take: \(settings.refused.joined(separator: ", "))") }
        }
        // What an archive never holds, and how to bring it.
        output.notice("Not in the archive: " + Self.notBrought(settings: settings != nil).joined(separator: "; ") + "."
                      + (hasKey ? "" : " This profile has no archive key: copy the other machine's key file (`brados keys show --json` there shows its path), or `brados keys generate`."))
    }

    /// What an import never brings, each with how to bring it.
    static func notBrought(settings: Bool) -> [String] {
        ["the sign-in and every secret (sign in here: `brados auth login`)", "the archive key (it stays where it was made)"]
            + (settings ? [] : ["settings (export with --with-settings to bring them)"])
    }
}
