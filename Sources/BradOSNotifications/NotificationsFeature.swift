import BradOSCore
import Foundation

/// Notifications as the core sees them (``Feature``): `watch.notify` and `notify.detail`.
public struct NotificationsFeature: Feature {
    public init() {}

    public var configKeys: [ConfigKey] { [NotificationDetail.notifyKey, NotificationDetail.configKey] }
}
