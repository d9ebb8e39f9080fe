import BradOSCore
import BradOSErrors
import Foundation

/// Notifications as the core sees them (``Feature``): `watch.notify` and `notify.detail`, and
/// whether a notification service answers, for `brados doctor`.
public struct NotificationsFeature: Feature {
    public init() {}

    public var configKeys: [ConfigKey] { [NotificationDetail.notifyKey, NotificationDetail.configKey, NotificationDetail.ownChangesKey] }

    /// `brados doctor`: whether `sync --watch --notify` would reach a notification service here
    /// (a warning only when `watch.notify` is on: without it nothing depends on one).
    public func doctorChecks(_ env: AppEnvironment) -> [DoctorCheck] {
        let on = parseBool(env.settings.resolve(NotificationDetail.notifyKey.name).value ?? "false") == true
        do {
            let server = try SessionBusNotifications(environment: env.io.environment).serverName()
            return [DoctorCheck(name: "notifications", status: .ok, detail: "\(server) answers on the session bus; watch.notify \(on ? "on" : "off")")]
        } catch {
            let detail = error.summaryText
            return [DoctorCheck(name: "notifications", status: on ? .warn : .ok, detail: on ? detail : "off (watch.notify false); \(detail)",
                                fix: on ? (error as? any BradOSError)?.recovery : nil)]
        }
    }
}
