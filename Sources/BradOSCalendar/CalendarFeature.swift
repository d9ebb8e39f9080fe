import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// The calendar as the core sees it (``Feature``): its setting, `calendar.file`, and for
/// `brados doctor` whether that file is there and how old it is.
public struct CalendarFeature: Feature {
    public init() {}

    public var configKeys: [ConfigKey] { [CalendarFile.configKey, CalendarZone.configKey, CalendarExport.pastSetting.configKey] }

    /// A command that changed a cached meal plan or visit (`visits add`, `mealplan finalize`, a
    /// background refresh) leaves `calendar.file` current as it ends; one that changed nothing
    /// of the calendar costs two `stat`s and a small read (``CalendarFile/update(_:changed:)``).
    /// Another profile's file is left as it is, quietly (`sync` says so).
    public func commandEnded(_ env: AppEnvironment) {
        guard env.settings.resolve(CalendarFile.configKey.name).value?.isEmpty == false else { return }
        do { try CalendarFile.update(env) } catch CalendarError.otherProfile {
            env.logger.debug("calendar.file is another profile's; left as it is")
        } catch {
            env.output.notice("calendar.file: \(error.summaryText) (written again by the next command that changes it, or `brados sync`)")
        }
    }

    /// What the calendar derives from the caches of `domains` goes with them (the days past it kept).
    public func forget(domains: [String]?, in profile: ProfileScope) throws {
        let past = CalendarPast(profile: profile)
        guard let domains else { return try FileSystem.remove(past.url) }
        var record = past.load()
        let kept = record
        for domain in domains { record.domains[domain] = nil }
        past.save(record, was: kept)
    }

    public func doctorChecks(_ env: AppEnvironment) -> [DoctorCheck] {
        do {
            guard let url = try CalendarFile.url(env.settings) else { return [] }
            guard let modified = FileSystem.attributes(of: url)?.modified else {
                return [DoctorCheck(name: "calendar.file", status: .warn, detail: "\(url.path) is not written yet", fix: "brados sync")]
            }
            if let owner = CalendarFile.owner(of: url), owner != env.profile.name.rawValue {
                return [DoctorCheck(name: "calendar.file", status: .warn, detail: "\(url.path) is the calendar of profile '\(owner)', not of this one",
                                    fix: "brados --profile \(owner) doctor, or for this profile another file: brados calendar -o OTHER.ics")]
            }
            return [DoctorCheck(name: "calendar.file", status: .ok,
                                detail: "\(url.path), the calendar of profile '\(env.profile.name.rawValue)', written \(Format.ago(env.now().timeIntervalSince(modified))) (sync, sync --watch and every change keep it current)")]
        } catch {
            return [DoctorCheck(name: "calendar.file", status: .fail, detail: error.summaryText, fix: "brados config set calendar.file /absolute/path.ics")]
        }
    }
}
