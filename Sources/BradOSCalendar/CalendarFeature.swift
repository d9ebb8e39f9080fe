import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// The calendar as the core sees it (``Feature``): its setting, `calendar.file`, and for
/// `brados doctor` whether that file is there and how old it is.
public struct CalendarFeature: Feature {
    public init() {}

    public var configKeys: [ConfigKey] { [CalendarFile.configKey] }

    public func doctorChecks(_ env: AppEnvironment) -> [DoctorCheck] {
        do {
            guard let url = try CalendarFile.url(env.settings) else { return [] }
            guard let modified = FileSystem.attributes(of: url)?.modified else {
                return [DoctorCheck(name: "calendar.file", status: .warn, detail: "\(url.path) is not written yet", fix: "brados sync")]
            }
            return [DoctorCheck(name: "calendar.file", status: .ok,
                                detail: "\(url.path), written \(Format.ago(env.now().timeIntervalSince(modified))) (sync and sync --watch keep it current)")]
        } catch {
            return [DoctorCheck(name: "calendar.file", status: .fail, detail: error.summaryText, fix: "brados config set calendar.file /absolute/path.ics")]
        }
    }
}
