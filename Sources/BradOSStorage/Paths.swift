import Foundation

/// Where brados keeps its files: XDG base directories, or everything under `BRADOS_HOME`.
///
/// | variable | used for | default |
/// |---|---|---|
/// | `BRADOS_HOME` | overrides the three below with `$BRADOS_HOME/{config,cache,data}` | unset |
/// | `XDG_CONFIG_HOME` | config file, credentials | `~/.config` |
/// | `XDG_CACHE_HOME` | per-profile caches | `~/.cache` |
/// | `XDG_DATA_HOME` | per-profile data, embedded server | `~/.local/share` |
public struct Paths: Sendable, Equatable {
    /// `…/brados` under the config home: `config.json` and `credentials/`.
    public var configRoot: URL
    /// `…/brados` under the cache home: `users/<profile>/<domain>/…`.
    public var cacheRoot: URL
    /// `…/brados` under the data home: `users/<profile>/…` and `embedded-server/`.
    public var dataRoot: URL

    public init(configRoot: URL, cacheRoot: URL, dataRoot: URL) {
        self.configRoot = configRoot
        self.cacheRoot = cacheRoot
        self.dataRoot = dataRoot
    }

    /// Resolves the roots from an environment (normally the process environment).
    /// `accountHome`: the account database's home, used when HOME is empty, relative or unset.
    public static func resolve(environment env: [String: String], accountHome: () -> String? = Paths.accountHome) -> Paths {
        if let home = env["BRADOS_HOME"], !home.isEmpty {
            let root = URL(fileURLWithPath: home, isDirectory: true)
            return Paths(
                configRoot: root.appendingPathComponent("config", isDirectory: true),
                cacheRoot: root.appendingPathComponent("cache", isDirectory: true),
                dataRoot: root.appendingPathComponent("data", isDirectory: true))
        }
        // An empty or relative HOME is never the working directory: the account database's
        // home stands in; with neither, the paths are unusable and ``homeProblem`` says why.
        let home = env["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? accountHome().flatMap { $0.hasPrefix("/") ? $0 : nil }
        let userHome = URL(fileURLWithPath: home ?? "/nonexistent", isDirectory: true)
        func base(_ variable: String, _ fallback: String) -> URL {
            // XDG: a relative path is invalid and must be ignored.
            if let value = env[variable], value.hasPrefix("/") {
                return URL(fileURLWithPath: value, isDirectory: true)
            }
            return userHome.appendingPathComponent(fallback, isDirectory: true)
        }
        var paths = Paths(
            configRoot: base("XDG_CONFIG_HOME", ".config").appendingPathComponent("brados", isDirectory: true),
            cacheRoot: base("XDG_CACHE_HOME", ".cache").appendingPathComponent("brados", isDirectory: true),
            dataRoot: base("XDG_DATA_HOME", ".local/share").appendingPathComponent("brados", isDirectory: true))
        if home == nil, !["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"].allSatisfy({ env[$0]?.hasPrefix("/") == true }) {
            paths.homeProblem = env["HOME"].map { $0.isEmpty ? "HOME is empty" : "HOME is a relative path ('\($0)')" } ?? "HOME is not set"
        }
        return paths
    }

    /// Why the paths cannot be used: no absolute home to put them under (HOME empty, relative
    /// or unset, and the account database has none); `nil` when they can.
    public var homeProblem: String?

    /// Makes the process's environment say the home brados uses, before any library reads it:
    /// an empty or relative HOME becomes the account database's home, and an empty or relative
    /// XDG base directory is taken away (the XDG spec ignores them). GLib, which libsecret
    /// brings, would otherwise make `.cache/` in the working directory from an empty HOME.
    public static func settleProcessHome() {
        for name in ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"] {
            if let value = getenv(name), value.pointee != 0x2F { unsetenv(name) }
        }
        let home = getenv("HOME")
        guard home == nil || home!.pointee != 0x2F else { return }
        if let account = accountHome(), account.hasPrefix("/") { setenv("HOME", account, 1) }
    }

    /// The current account's home folder from the account database (`getpwuid_r`).
    public static func accountHome() -> String? {
        var record = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(getuid(), &record, &buffer, buffer.count, &found) == 0, found != nil, let dir = record.pw_dir else { return nil }
        let path = String(cString: dir)
        return path.isEmpty ? nil : path
    }

    /// The config file, `config.json`.
    public var configFile: URL { configRoot.appendingPathComponent("config.json") }
    /// The folder of per-profile credential files (0700; files 0600).
    public var credentialsDirectory: URL { configRoot.appendingPathComponent("credentials", isDirectory: true) }

    /// Every profile that has something here (a sign-in, a cache or data), and `default`, by name.
    public func knownProfiles() -> [ProfileName] {
        var names: Set<String> = [ProfileName.default.rawValue]
        let files = FileManager.default
        for name in (try? files.contentsOfDirectory(atPath: credentialsDirectory.path)) ?? [] where name.hasSuffix(".json") {
            names.insert(String(name.dropLast(5)))
        }
        for root in [cacheRoot, dataRoot] {
            names.formUnion((try? files.contentsOfDirectory(atPath: root.appendingPathComponent("users").path)) ?? [])
        }
        return names.compactMap(ProfileName.init(rawValue:)).sorted { $0.rawValue < $1.rawValue }
    }

    /// Whether `name` has anything here (a sign-in, a cache or data); `default` always does.
    public func hasProfile(_ name: ProfileName) -> Bool {
        let scope = profile(name)
        return name == .default || FileSystem.exists(credentialsDirectory.appendingPathComponent("\(name.rawValue).json"))
            || FileSystem.exists(scope.cacheDirectory) || FileSystem.exists(scope.dataDirectory)
    }

    /// The per-profile scope: its cache and data folders.
    public func profile(_ name: ProfileName) -> ProfileScope {
        ProfileScope(
            name: name,
            cacheDirectory: cacheRoot.appendingPathComponent("users", isDirectory: true)
                .appendingPathComponent(name.rawValue, isDirectory: true),
            dataDirectory: dataRoot.appendingPathComponent("users", isDirectory: true)
                .appendingPathComponent(name.rawValue, isDirectory: true))
    }
}

/// A validated profile name: 1–64 of `[A-Za-z0-9._-]`, not starting with `.` or `-`,
/// so it is always a single safe path component.
public struct ProfileName: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// The profile used when none is chosen.
    public static let `default` = ProfileName(unchecked: "default")

    public init?(rawValue: String) {
        guard (1...64).contains(rawValue.count),
              let first = rawValue.unicodeScalars.first, first != ".", first != "-",
              rawValue.unicodeScalars.allSatisfy({ Self.allowed.contains($0) })
        else { return nil }
        self.rawValue = rawValue
    }

    private init(unchecked: String) { rawValue = unchecked }
    private static let allowed = CharacterSet(charactersIn:
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")

    public var description: String { rawValue }
}

/// Everything that belongs to one profile. Domains keep their files in
/// `cacheDirectory/<domain>` and `dataDirectory/<domain>`.
public struct ProfileScope: Sendable, Equatable {
    public var name: ProfileName
    /// `<cache root>/users/<profile>`: removed entirely by `brados auth logout`.
    public var cacheDirectory: URL
    /// `<data root>/users/<profile>`: removed entirely by `brados auth logout`.
    public var dataDirectory: URL

    /// A domain's cache folder.
    public func cacheDirectory(for domain: String) -> URL {
        cacheDirectory.appendingPathComponent(domain, isDirectory: true)
    }

    /// A domain's data folder.
    public func dataDirectory(for domain: String) -> URL {
        dataDirectory.appendingPathComponent(domain, isDirectory: true)
    }

    /// The profile's key-value store file (the analogue of iOS `UserDefaults`).
    public var defaultsFile: URL { dataDirectory.appendingPathComponent("defaults.json") }
}
