import BradOSAuth
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Logging

/// Where a setting's value came from, in precedence order (first wins).
public enum SettingSource: String, Sendable, Codable, Comparable {
    case flag, environment, file, `default`

    public static func < (lhs: SettingSource, rhs: SettingSource) -> Bool {
        let order: [SettingSource] = [.flag, .environment, .file, .default]
        return order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
    }
}

/// The global flags, as plain values (the CLI fills them from ``GlobalOptions``).
public struct GlobalFlags: Sendable, Equatable {
    public var profile: String?
    public var server: String?
    public var offline: Bool
    public var verbose: Bool
    public var json: Bool
    /// `--quiet`: no notices or progress on stderr (errors still print).
    public var quiet: Bool
    /// `--no-pager`: long output is never sent through the pager.
    public var noPager: Bool
    /// `--credentials-store`: where secrets go (`credentials.store`).
    public var credentialsStore: String?
    /// `--log-format`: how log lines look (`log.format`).
    public var logFormat: String?

    public init(profile: String? = nil, server: String? = nil, offline: Bool = false, verbose: Bool = false, json: Bool = false, quiet: Bool = false,
                noPager: Bool = false, credentialsStore: String? = nil, logFormat: String? = nil) {
        self.credentialsStore = credentialsStore
        self.logFormat = logFormat
        self.quiet = quiet
        self.noPager = noPager
        self.profile = profile
        self.server = server
        self.offline = offline
        self.verbose = verbose
        self.json = json
    }
}

/// A resolved setting: its value and where it came from.
public struct ResolvedSetting: Sendable, Equatable, Codable {
    public var key: String
    @NullWhenAbsent public var value: String?
    public var source: SettingSource
}

/// Resolves every setting with one precedence: flag > environment > config file > default.
///
/// A service's server URL also falls back from the service's own key to `server`
/// at each level: `--server`, then `BRADOS_<SERVICE>_SERVER`, `BRADOS_SERVER`,
/// then `server.<service>`, `server` in the file, then the embedded backend.
public struct Settings: Sendable {
    public var flags: GlobalFlags
    public var environment: [String: String]
    public var file: ConfigFile
    public var keys: [ConfigKey]
    /// The services whose `server.<name>` keys fall back to `server`.
    public var services: [Service]

    public init(flags: GlobalFlags, environment: [String: String], file: ConfigFile, keys: [ConfigKey] = ConfigKey.core,
                services: [Service] = [.account]) {
        self.flags = flags
        self.environment = environment
        self.file = file
        self.keys = keys
        self.services = services
    }

    /// The settings of `plugins` and `features`: the core's keys, each service's `server.<name>`,
    /// each domain's and each feature's keys.
    public init(flags: GlobalFlags, environment: [String: String], file: ConfigFile, plugins: [any DomainPlugin], features: [any Feature] = []) {
        self.init(flags: flags, environment: environment, file: file, keys: Self.keys(plugins, features: features),
                  services: ServiceDescription.all(plugins).map(\.service))
    }

    /// Every documented key with these plugins and features: the core's, each service's
    /// `server.<name>`, each domain's, each feature's.
    public static func keys(_ plugins: [any DomainPlugin], features: [any Feature] = []) -> [ConfigKey] {
        ConfigKey.core + ServiceDescription.all(plugins).dropFirst().map(\.configKey) + plugins.flatMap(\.configKeys)
            + features.flatMap(\.configKeys)
    }

    /// The key's definition, if known.
    public func key(named name: String) -> ConfigKey? { keys.first { $0.name == name } }

    /// Resolves one key. Unknown keys resolve from the file only.
    public func resolve(_ name: String) -> ResolvedSetting {
        if let flag = flagValue(for: name) { return ResolvedSetting(key: name, value: flag, source: .flag) }
        if name.hasPrefix("server."), case let service = Service(rawValue: String(name.dropFirst(7))), services.contains(service) {
            if let server = try? serverURL(for: service) {
                return ResolvedSetting(key: name, value: server.url.absoluteString, source: server.source)
            }
            return ResolvedSetting(key: name, value: nil, source: .default)
        }
        let definition = key(named: name)
        if let variable = definition?.environmentVariable, let value = environment[variable], !value.isEmpty {
            return ResolvedSetting(key: name, value: value, source: .environment)
        }
        if let value = file.values[name] { return ResolvedSetting(key: name, value: value, source: .file) }
        return ResolvedSetting(key: name, value: definition?.defaultValue, source: .default)
    }

    private func flagValue(for name: String) -> String? {
        switch name {
        case "profile": flags.profile
        case "server": flags.server
        case _ where name.hasPrefix("server."): flags.server
        case "offline": flags.offline ? "true" : nil
        case "log": flags.verbose ? "debug" : nil
        case "credentials.store": flags.credentialsStore
        case "log.format": flags.logFormat
        default: nil
        }
    }

    /// The active profile.
    /// - Throws: ``ConfigError/invalidProfileName(_:)``.
    public func profile() throws -> ProfileName {
        try ProfileName(validating: resolve("profile").value ?? ProfileName.default.rawValue)
    }

    /// `credentials.store`: where new secrets go.
    /// - Throws: ``ConfigError/invalidValue(key:value:expected:)`` for a value that is none of them.
    public func credentialStore() throws -> CredentialStoreChoice {
        let setting = resolve("credentials.store")
        guard let value = setting.value else { return .auto }
        guard let choice = CredentialStoreChoice(rawValue: value) else {
            throw ConfigError.invalidValue(key: "credentials.store", value: value, expected: "auto, keyring or file")
        }
        return choice
    }

    /// The forms output takes (`units`, `display.clock`, `display.week-start`), and what was
    /// wrong with any of them (each such value is read as its default, said once by the caller).
    public func displayForms() -> (forms: DisplayForms, problems: [String]) {
        var forms = DisplayForms.standard
        var problems: [String] = []
        func read<T: RawRepresentable>(_ name: String, _ expected: String) -> T? where T.RawValue == String {
            guard let value = resolve(name).value, !value.isEmpty else { return nil }
            if let parsed = T(rawValue: value.lowercased()) { return parsed }
            problems.append("\(name) is '\(value)', not \(expected): using the default. `brados config set \(name) VALUE` fixes it.")
            return nil
        }
        if let units: UnitSystem = read("units", "metric or imperial") { forms.units = units }
        if let clock: ClockStyle = read("display.clock", "24h or 12h") { forms.clock = clock }
        if let start: WeekStart = read("display.week-start", "monday, sunday or saturday") { forms.weekStart = start }
        forms.accessible = isAccessible
        return (forms, problems)
    }

    /// The accessible mode (`display.accessible`, `BRADOS_ACCESSIBLE=1`).
    public var isAccessible: Bool { resolve("display.accessible").value.flatMap(parseBool) ?? false }

    /// Whether spinners and progress bars may be drawn: `display.progress` on and not the accessible mode.
    public var drawsProgress: Bool { !isAccessible && (resolve("display.progress").value.flatMap(parseBool) ?? true) }

    /// Whether the network must not be used.
    public var isOffline: Bool { resolve("offline").value.flatMap(parseBool) ?? false }

    /// `network.timeout`: how long one request may take before it fails (and is retried).
    public static let networkTimeoutSetting = DurationSetting(
        name: "network.timeout", summary: "How long one request may take before it fails (and is retried)",
        environmentVariable: "BRADOS_NETWORK_TIMEOUT", defaultValue: "30s", allowsZero: false)

    /// How long one request may take (`network.timeout`, 30 s by default).
    /// - Throws: ``ConfigError`` for a value the rule refuses.
    public func networkTimeout() throws -> Duration { try Self.networkTimeoutSetting.value(in: self) }

    /// `refresh.wait`: how long a read with a cached copy waits for the server before it shows
    /// the copy and refreshes it in the background (``CacheReader/wait``): 0 s by default, so
    /// a slow or stopped server never holds the prompt.
    public static let refreshWaitSetting = DurationSetting(
        name: "refresh.wait", summary: "How long a read with a cached copy waits for the server before showing the copy (refreshed in the background)",
        environmentVariable: "BRADOS_REFRESH_WAIT", defaultValue: "0s", allowsZero: true)

    /// `profile.lock-timeout`: how long a command waits for another brados that holds the
    /// profile (an import, a cache clear, a sign-out) before it gives up (exit 11).
    public static let profileLockTimeoutSetting = DurationSetting(
        name: "profile.lock-timeout", summary: "How long a command waits for another brados that holds the profile (an import, a sign-out)",
        environmentVariable: "BRADOS_PROFILE_LOCK_TIMEOUT", defaultValue: "60s", allowsZero: true)

    /// The log level on stderr.
    public var logLevel: Logger.Level {
        Logger.Level(rawValue: resolve("log").value ?? "warning") ?? .warning
    }

    /// How log lines look on stderr (`--log-format`, `BRADOS_LOG_FORMAT`, `log.format`).
    public var logFormat: LogFormat {
        resolve("log.format").value.flatMap(LogFormat.init(rawValue:)) ?? .text
    }

    /// A service's server URL and where it came from; `nil` means "use the embedded backend".
    /// - Throws: ``ConfigError/invalidValue(key:value:expected:)`` naming the variable or key that holds a non-URL.
    public func serverURL(for service: Service) throws -> (url: URL, source: SettingSource)? {
        let candidates: [(String?, SettingSource, String)] = [
            (flags.server, .flag, "--server"),
            (environment[service.environmentVariable], .environment, service.environmentVariable),
            (environment["BRADOS_SERVER"], .environment, "BRADOS_SERVER"),
            (file.values[service.configKey], .file, service.configKey),
            (file.values["server"], .file, "server"),
        ]
        for case let (value?, source, name) in candidates where !value.isEmpty {
            if let problem = ConfigKey.urlValidator(value) {
                throw ConfigError.invalidValue(key: name, value: value, expected: problem)
            }
            let trimmed = value.hasSuffix("/") ? String(value.dropLast()) : value
            return (URL(string: trimmed)!, source)
        }
        return nil
    }

    /// A service's own server (`server.NAME` or `BRADOS_NAME_SERVER`), ignoring `--server`,
    /// `BRADOS_SERVER` and `server`, which name the BradOS server for every service.
    /// - Throws: ``ConfigError/invalidValue(key:value:expected:)``.
    public func ownServerURL(for service: Service) throws -> URL? {
        let candidates: [(String?, String)] = [
            (environment[service.environmentVariable], service.environmentVariable), (file.values[service.configKey], service.configKey),
        ]
        for case let (value?, name) in candidates where !value.isEmpty {
            if let problem = ConfigKey.urlValidator(value) { throw ConfigError.invalidValue(key: name, value: value, expected: problem) }
            return URL(string: value.hasSuffix("/") ? String(value.dropLast()) : value)!
        }
        return nil
    }

    /// A key's effective value, checked by the same rule `brados config set` applies.
    /// - Throws: ``ConfigError/invalidValue(key:value:expected:)`` naming the key (or the
    ///   environment variable) and the value.
    public func validated(_ name: String) throws -> String {
        let setting = resolve(name)
        let value = setting.value ?? ""
        if let definition = key(named: name), let problem = definition.validate(value) {
            let where_ = setting.source == .environment ? (definition.environmentVariable ?? name) : name
            throw ConfigError.invalidValue(key: where_, value: value, expected: problem)
        }
        return value
    }

    /// Every known key, resolved, for `brados config list`.
    public func all() -> [ResolvedSetting] { keys.map { resolve($0.name) } }
}
