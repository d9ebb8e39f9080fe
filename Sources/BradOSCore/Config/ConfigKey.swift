import BradOSAuth
import BradOSStorage
import BradOSTerminal
import Foundation

/// A documented configuration key. Core keys are listed in ``ConfigKey/core`` (features add theirs: ``Feature/configKeys``);
/// domains add theirs through ``DomainPlugin/configKeys`` (durations through
/// ``DurationSetting``) and ``DomainPlugin/services`` (`server.<name>`).
public struct ConfigKey: Sendable {
    /// The key as typed in `brados config set KEY VALUE`.
    public var name: String
    /// One line shown by `brados config list`.
    public var summary: String
    /// The environment variable that overrides the file, if any.
    public var environmentVariable: String?
    /// The value when nothing sets it, shown by `config list`; `nil` means unset.
    public var defaultValue: String?
    /// Checks a value; returns a description of what is expected when it is invalid.
    public var validate: @Sendable (String) -> String?
    /// The values it takes, when they are a few words (`brados config set KEY <Tab>` offers them).
    public var choices: [String]

    public init(
        name: String, summary: String, environmentVariable: String? = nil, defaultValue: String? = nil,
        choices: [String] = [], validate: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.name = name
        self.summary = summary
        self.environmentVariable = environmentVariable
        self.defaultValue = defaultValue
        self.choices = choices
        self.validate = validate
    }

    /// Accepts an absolute http(s) URL.
    public static let urlValidator: @Sendable (String) -> String? = { value in
        guard let url = URL(string: value), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil
        else { return "an http:// or https:// URL" }
        return nil
    }

    /// Accepts `true`/`false` (and `1`/`0`, `yes`/`no`).
    public static let boolValidator: @Sendable (String) -> String? = { value in
        parseBool(value) == nil ? "true or false" : nil
    }

    /// Accepts a size such as `250MB`, `1GB`.
    public static let sizeValidator: @Sendable (String) -> String? = { value in
        parseByteSize(value) == nil ? "a size such as 250MB, 1.5GB or 1,5GB" : nil
    }

    /// The keys the core owns.
    public static let core: [ConfigKey] = [
        ConfigKey(name: "server", summary: "Server URL for every service (default: the embedded demo backend)",
                  environmentVariable: "BRADOS_SERVER", validate: urlValidator),
        ServiceDescription.account.configKey,
        ConfigKey(name: "profile", summary: "The active profile (set by `brados auth switch`)",
                  environmentVariable: "BRADOS_PROFILE", defaultValue: ProfileName.default.rawValue,
                  validate: { ProfileName(rawValue: $0) == nil ? "a profile name ([A-Za-z0-9._-], 1-64)" : nil }),
        ConfigKey(name: "offline", summary: "Never open a network connection; serve only from caches",
                  environmentVariable: "BRADOS_OFFLINE", defaultValue: "false", validate: boolValidator),
        ConfigKey(name: "log", summary: "Log level on stderr: error, warning, info, debug, trace",
                  environmentVariable: "BRADOS_LOG", defaultValue: "warning", choices: ["error", "warning", "info", "debug", "trace"],
                  validate: { ["error", "warning", "info", "debug", "trace"].contains($0) ? nil : "error, warning, info, debug or trace" }),
        ConfigKey(name: "log.format", summary: "How log lines look on stderr: text, or json (one object a line, for journald and jq)",
                  environmentVariable: "BRADOS_LOG_FORMAT", defaultValue: LogFormat.text.rawValue, choices: ["text", "json"],
                  validate: { LogFormat(rawValue: $0) == nil ? "text or json" : nil }),
        ConfigKey(name: "credentials.store",
                  summary: "Where secrets go: auto (the keyring when one answers, else a 0600 file, said once), keyring, or file",
                  environmentVariable: "BRADOS_CREDENTIALS_STORE", defaultValue: CredentialStoreChoice.auto.rawValue,
                  choices: ["auto", "keyring", "file"], validate: { CredentialStoreChoice(rawValue: $0) == nil ? "auto, keyring or file" : nil }),
        Settings.networkTimeoutSetting.configKey,
        Settings.refreshWaitSetting.configKey,
        Settings.profileLockTimeoutSetting.configKey,
        ConfigKey(name: "units", summary: "Body weight and volume: metric (kg, ml) or imperial (lb, fl oz); grams and kcal stay; kg and ml are stored and sent",
                  environmentVariable: "BRADOS_UNITS", defaultValue: UnitSystem.metric.rawValue, choices: UnitSystem.allCases.map(\.rawValue),
                  validate: { UnitSystem(rawValue: $0) == nil ? "metric or imperial" : nil }),
        ConfigKey(name: "display.clock", summary: "Times of day: 24h (19:00) or 12h (7:00 pm)",
                  defaultValue: ClockStyle.twentyFourHour.rawValue, choices: ClockStyle.allCases.map(\.rawValue),
                  validate: { ClockStyle(rawValue: $0) == nil ? "24h or 12h" : nil }),
        ConfigKey(name: "display.accessible",
                  summary: "For a screen reader or a braille display: no spinners, no pictures or plots (their text line instead), words for symbols, no pager",
                  environmentVariable: "BRADOS_ACCESSIBLE", defaultValue: "false", validate: boolValidator),
        ConfigKey(name: "display.progress", summary: "Spinners and progress bars on a terminal's stderr: on, or off (a line once instead)",
                  defaultValue: "on", choices: ["on", "off"], validate: boolValidator),
        ConfigKey(name: "display.week-start", summary: "The day weeks start on: monday, sunday or saturday (today's week, the calendar's range)",
                  defaultValue: WeekStart.monday.rawValue, choices: WeekStart.allCases.map(\.rawValue),
                  validate: { WeekStart(rawValue: $0) == nil ? "monday, sunday or saturday" : nil }),
    ]
}

/// Parses `250MB`, `1.5GB` (or `1,5GB`), `500k`, `1000000` (decimal units, like the rest of brados).
public func parseByteSize(_ value: String) -> Int64? {
    let text = value.trimmingCharacters(in: .whitespaces).uppercased().replacingOccurrences(of: " ", with: "")
    let units: [(String, Double)] = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("K", 1e3), ("B", 1)]
    for (suffix, multiplier) in units where text.hasSuffix(suffix) {
        guard let number = parseDecimal(String(text.dropLast(suffix.count))), number * multiplier < 1e15 else { return nil }
        return Int64(number * multiplier)
    }
    guard let bytes = Int64(text), bytes >= 0 else { return nil }
    return bytes
}

/// Parses `true/false/1/0/yes/no/on/off`.
public func parseBool(_ value: String) -> Bool? {
    switch value.lowercased() {
    case "1", "true", "yes", "on": true
    case "0", "false", "no", "off", "": false
    default: nil
    }
}

