import BradOSCore
import Foundation

/// The calendar as the core sees it (``Feature``): its setting, `calendar.file`.
public struct CalendarFeature: Feature {
    public init() {}

    public var configKeys: [ConfigKey] { [CalendarFile.configKey] }
}
