import BradOSCore
import BradOSStorage
import Foundation

/// The file a calendar subscribes to (`calendar.file`): what `brados calendar` writes with no
/// options, kept current by `brados sync`, by `sync --watch` on each change, and by every
/// command that changes a cached meal plan or visit as it ends (``CalendarFeature``). Written
/// atomically (a reader sees the old file or the new one, never half), and only when its
/// content changed, so a calendar that polls it re-reads nothing when nothing moved.
///
/// It is one profile's: the file names the profile whose caches it holds
/// (`X-BRADOS-PROFILE`), and another profile leaves it as it is (a profile imported from a
/// backup, never signed in, must not put its older copy in the person's calendar).
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
    /// when `nil`) adds to the calendar. Writers take turns (a lock beside the calendar's
    /// ledger), and one that finds nothing moved since the file was last written (the domains'
    /// stamps, the range, the file itself) stops there: a command that changed no meal or
    /// visit pays two `stat`s and a small read.
    /// - Returns: whether the file was written (`false`: off, nothing of the calendar changed, or the same bytes).
    /// - Throws: ``CalendarError/otherProfile(path:owner:profile:)`` when the file is another
    ///   profile's; ``ConfigError``, ``StorageError`` when it cannot be written; a domain whose
    ///   cache could not be read (its error), after writing the others' events.
    @discardableResult
    public static func update(_ env: AppEnvironment, changed: [String]? = nil) throws -> Bool {
        guard let url = try url(env.settings) else { return false }
        if let changed, !env.plugins.contains(where: { $0 is any AddsToCalendar && changed.contains($0.name) }) { return false }
        let folder = CalendarExport.folder(env.profile)
        try FileSystem.createDirectory(folder)
        return try FileLock.withExclusiveLock(at: folder.appendingPathComponent("file.lock")) {
            let range = try CalendarExport.defaultRange(env)
            let plugins = try CalendarExport.chosen(env, nil)
            let state = folder.appendingPathComponent("file.state")
            let key = CalendarMemo(profile: env.profile).key(try CalendarExport.stamps(env, plugins), range: range)
            let written = { (key: String) in url.path + "\n" + key + "\n" + (FileSystem.identity(of: url) ?? "none") }
            if let key, (try? AtomicFile.readIfPresent(state)).map({ String(decoding: $0, as: UTF8.self) }) == written(key) { return false }
            try checkOwner(url, profile: env.profile.name.rawValue)
            let export = try CalendarExport.document(env, domains: nil, during: range)
            let changed = try write(Data(export.document.utf8), to: url)
            if export.firstFailure == nil, let key { try? AtomicFile.write(Data(written(key).utf8), to: state, durable: false) }
            if let failure = export.firstFailure { throw failure }
            return changed
        }
    }

    /// The profile a calendar file names (`X-BRADOS-PROFILE`), read from its first lines;
    /// `nil` for a file that names none (written by an older brados, or by another program).
    public static func owner(of url: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 2048) else { return nil }
        let prefix = ICalendar.profileProperty + ":"
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n") {
            if line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)) }
            if line.hasPrefix("BEGIN:VEVENT") || line.hasPrefix("BEGIN:VTIMEZONE") { break }
        }
        return nil
    }

    /// Refuses a file another profile's caches fill.
    /// - Throws: ``CalendarError/otherProfile(path:owner:profile:)``.
    static func checkOwner(_ url: URL, profile: String) throws {
        guard let owner = owner(of: url), owner != ICalendar.text(profile) else { return }
        throw CalendarError.otherProfile(path: url.path, owner: owner, profile: profile)
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
