import BradOSTerminal
import Foundation

/// A setting that holds a duration (a TTL, a timeout). One rule decides whether a value is
/// valid, and it runs both when `brados config set` writes the value and when a command reads
/// it, so a value `config set` accepts is never refused later, and the reverse.
public struct DurationSetting: Sendable {
    public var name: String
    public var summary: String
    public var environmentVariable: String?
    /// The default, as typed (`5m`).
    public var defaultValue: String
    /// Whether `0s` is meaningful (e.g. "always revalidate first"); otherwise the value must be above zero.
    public var allowsZero: Bool

    public init(name: String, summary: String, environmentVariable: String? = nil, defaultValue: String, allowsZero: Bool) {
        self.name = name
        self.summary = summary
        self.environmentVariable = environmentVariable
        self.defaultValue = defaultValue
        self.allowsZero = allowsZero
    }

    /// What a valid value looks like, for messages.
    public var expected: String {
        allowsZero ? "a duration such as 90s, 5m or 1h (0s allowed)" : "a duration above zero, such as 90s, 5m or 1h"
    }

    /// The value `text` stands for, or `nil` when the rule refuses it.
    public func parse(_ text: String) -> Duration? {
        guard let duration = parseDuration(text), allowsZero || duration > .zero else { return nil }
        return duration
    }

    /// The key for `config list/set`, validated by ``parse(_:)``.
    public var configKey: ConfigKey {
        let rule = self
        return ConfigKey(name: name, summary: summary, environmentVariable: environmentVariable, defaultValue: defaultValue,
                         validate: { rule.parse($0) == nil ? rule.expected : nil })
    }

    /// The effective value.
    /// - Throws: ``ConfigError/invalidValue(key:value:expected:)`` naming where the bad value is set.
    public func value(in settings: Settings) throws -> Duration {
        let setting = settings.resolve(name)
        let text = setting.value ?? defaultValue
        guard let duration = parse(text) else {
            let key = setting.source == .environment ? (environmentVariable ?? name) : name
            throw ConfigError.invalidValue(key: key, value: text, expected: expected)
        }
        return duration
    }
}
