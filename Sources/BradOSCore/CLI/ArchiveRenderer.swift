import Foundation

/// What `cache export`, `cache verify` and `cache import` print, in both output formats.
public struct ArchiveRenderer {
    let output: Output
    public init(output: Output) { self.output = output }

    /// `archive` is nil when the archive went to stdout.
    public func exported(_ report: CacheExporter.Report, archive: URL?, archiveBytes: Int64?, compression: ArchiveCompression) throws {
        if output.format == .json {
            struct Document: Encodable { var archive: String; var archiveBytes: Int64?; var report: CacheExporter.Report }
            return try output.json(Document(archive: archive?.path ?? "-", archiveBytes: archiveBytes, report: report))
        }
        let summary = "Exported \(Format.count(report.files, "file")) (\(Format.bytes(report.bytes))) of \(report.domains.map(\.name).joined(separator: ", "))"
        guard let archive else { return output.notice(summary + " to stdout.") }
        output.line(summary + " to \(archive.path) (\(Format.bytes(archiveBytes ?? 0)), \(compression.rawValue)).")
    }

    public func verified(_ report: CacheVerifier.Report) throws {
        if output.format == .json { return try output.json(report) }
        output.line("OK: \(Format.count(report.files, "file")), \(Format.bytes(report.bytes)), every size and SHA-256 checked.")
        output.line("  profile \(report.profile), made \(Format.minute(report.createdAt)) by brados \(report.bradosVersion)")
        output.table(Table(headers: ["DOMAIN", "FILES", "SIZE", "VERSION"],
                           rows: report.domains.map { [$0.name, "\($0.files)", Format.bytes($0.bytes), "\($0.dataVersion)"] },
                           rightAligned: [1, 2]))
    }

    public func imported(_ report: CacheImporter.Report, dryRun: Bool) throws {
        if output.format == .json { return try output.json(report) }
        output.line((dryRun ? "Would import into" : "Imported into") + " profile \(report.profile) (archive of \(report.archiveProfile)):")
        output.table(Table(headers: ["DOMAIN", "ACTION", "FILES", "SIZE", "NOW"],
                           rows: report.domains.map { [$0.domain, $0.action, "\($0.files)", Format.bytes($0.bytes), "\($0.existingFiles) files, \(Format.bytes($0.existingBytes))"] },
                           rightAligned: [2, 3]))
        if !report.skipped.isEmpty { output.notice("skipped \(report.skipped.joined(separator: ", ")) (not selected, or unknown to this brados)") }
    }
}
