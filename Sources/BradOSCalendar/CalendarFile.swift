import BradOSCore
import BradOSStorage
import Foundation

/// The file a calendar subscribes to (`calendar.file`): what `brados calendar` writes with no
/// options, kept current by `brados sync` and by `sync --watch` on each change. Written
/// atomically (a reader sees the old file or the new one, never half), and only when its
/// content changed, so a calendar that polls it re-reads nothing when nothing moved.
public enum CalendarFile {
    /// The setting, off (unset) by default.
    public static let configKey = ConfigKey(
        name: "calendar.file",
        summary: "An .ics file `brados sync` and `sync --watch` keep current for a calendar to subscribe to (off when unset)",
        validate: { $0.hasPrefix("/") && !$0.hasSuffix("/") ? nil : "an absolute file path, such as ~/.local/share/brados/brados.ics expanded by the shell" })

    /// The file, when the setting is on.
    /// - Throws: ``ConfigError/invalidValue(key:value:expected:)``.
    public static func url(_ settings: Settings) throws -> URL? {
        guard settings.resolve(configKey.name).value?.isEmpty == false else { return nil }
        return URL(fileURLWithPath: try settings.validated(configKey.name))
    }

    /// Brings the file up to date when the setting is on and one of `changed` (every domain
    /// when `nil`) adds to the calendar.
    /// - Returns: whether the file was written (`false`: off, nothing of the calendar changed, or the same bytes).
    /// - Throws: ``ConfigError``, ``StorageError`` when it cannot be written; a domain whose
    ///   cache could not be read (its error), after writing the others' events.
    @discardableResult
    public static func update(_ env: AppEnvironment, changed: [String]? = nil) throws -> Bool {
        guard let url = try url(env.settings) else { return false }
        if let changed, !env.plugins.contains(where: { $0 is any AddsToCalendar && changed.contains($0.name) }) { return false }
        let export = try CalendarExport.document(env, domains: nil, during: CalendarExport.defaultRange(now: env.now(), calendar: CalendarExport.localCalendar))
        let written = try write(Data(export.document.utf8), to: url)
        if let failure = export.firstFailure { throw failure }
        return written
    }

    /// Writes `data` to `url` atomically unless the file already holds it; its folder is made
    /// when missing (the setting names a file brados owns).
    /// - Throws: ``StorageError``.
    static func write(_ data: Data, to url: URL) throws -> Bool {
        if (try? AtomicFile.readIfPresent(url)) == data { return false }
        try AtomicFile.write(data, to: url, mode: 0o600)
        return true
    }
}
