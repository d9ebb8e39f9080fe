import ArgumentParser
import Foundation

/// `brados config`: read and write settings.
public struct ConfigCommand: AsyncParsableCommand {
    public static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "config",
        abstract: "Read and write settings (server URLs, profile, TTLs).",
        discussion: """
        Precedence: flag > environment variable > config file > default.
        Examples:
          brados config set server http://127.0.0.1:8080
          brados config set \(HelpExamples.serviceKey) http://192.168.1.20:8080
          brados config list
        """,
        subcommands: [Get.self, Set.self, Unset.self, List.self, Path.self]) }

    public init() {}
}

extension ConfigCommand {
    public struct Get: AsyncParsableCommand {
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "get", abstract: "Print a setting's effective value.", discussion: "Examples:\n  brados config get server\n  brados config get \(HelpExamples.domainKey)") }
        @Argument(help: ArgumentHelp("The key, e.g. server or \(HelpExamples.serviceKey)."), completion: .custom { _, _, _ in CompletionValues.configKeys() }) var key: String
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Prints the key's effective value.
        /// - Throws: ``ConfigError/unknownKey(_:known:)``; ``CommandError`` (not found) when the key is not set; ``ConfigError``
        ///   for an unreadable config file; ``StorageError/coding(path:detail:)``.
        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: nil)
            guard env.settings.key(named: key) != nil else {
                throw ConfigError.unknownKey(key, known: env.settings.keys.map(\.name))
            }
            let setting = env.settings.resolve(key)
            if env.output.format == .json { return try env.output.json(setting) }
            guard let value = setting.value else {
                throw CommandError("\(key) is not set.", recovery: key.hasPrefix("server")
                    ? "Without a server brados uses its built-in demo backend; set one with `brados config set \(key) URL`." : nil,
                    kind: .notFound)
            }
            env.output.line(value)
        }
    }

    public struct Set: AsyncParsableCommand {
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "set", abstract: "Write a setting to the config file.", discussion: "Examples:\n  brados config set server https://bradOS.example\n  brados config set \(HelpExamples.domainSetting.key) \(HelpExamples.domainSetting.value)") }
        @Argument(help: "The key (see `brados config list`).", completion: .custom { _, _, _ in CompletionValues.configKeys() }) var key: String
        @Argument(help: "The value.") var value: String
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Checks the value by the key's rule and writes it to the config file.
        /// - Throws: ``ConfigError/unknownKey(_:known:)``, ``ConfigError/invalidValue(key:value:expected:)``; ``StorageError``
        ///   when the config file cannot be written.
        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: nil)
            guard let definition = env.settings.key(named: key) else {
                throw ConfigError.unknownKey(key, known: env.settings.keys.map(\.name))
            }
            if let expected = definition.validate(value) {
                throw ConfigError.invalidValue(key: key, value: value, expected: expected)
            }
            let stored = definition.name.hasPrefix("server") && value.hasSuffix("/") ? String(value.dropLast()) : value
            try ConfigFile.update(at: env.paths.configFile) { $0.values[key] = stored }
            if env.output.format == .json { return try env.output.json(["key": key, "value": stored]) }
            env.output.line("\(key) = \(stored)")
            if let variable = definition.environmentVariable, env.io.environment[variable] != nil {
                env.output.notice("\(variable) is set in the environment and overrides this value.")
            }
        }
    }

    public struct Unset: AsyncParsableCommand {
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "unset", abstract: "Remove a setting from the config file.", discussion: "Examples:\n  brados config unset \(HelpExamples.serviceKey)") }
        @Argument(help: "The key.", completion: .custom { _, _, _ in CompletionValues.configKeys() }) var key: String
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Removes the key from the config file.
        /// - Throws: ``ConfigError/unknownKey(_:known:)``; ``StorageError`` when the config file cannot be written.
        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: nil)
            guard env.settings.key(named: key) != nil else {
                throw ConfigError.unknownKey(key, known: env.settings.keys.map(\.name))
            }
            try ConfigFile.update(at: env.paths.configFile) { $0.values[key] = nil }
            if env.output.format == .json { return try env.output.json(env.settings.resolve(key)) }
            env.output.line("\(key) unset")
        }
    }

    public struct List: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "list", abstract: "List every setting with its value and where it comes from.", discussion: "Examples:\n  brados config list\n  brados config list --json")
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Prints every setting with its value, source, environment variable and meaning.
        /// - Throws: ``ConfigError`` for an unreadable config file or invalid profile name;
        ///   ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: nil)
            let all = env.settings.all()
            if env.output.format == .json { return try env.output.json(all) }
            let rows = zip(all, env.settings.keys).map { setting, key in
                [setting.key, setting.value ?? (setting.key.hasPrefix("server") ? "(embedded demo)" : "-"),
                 setting.source.rawValue, key.environmentVariable ?? "", key.summary]
            }
            env.output.table(Table(headers: ["KEY", "VALUE", "SOURCE", "ENV", "MEANING"], rows: rows))
        }
    }

    public struct Path: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "path", abstract: "Show where brados keeps its files.", discussion: "Examples:\n  brados config path")
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Prints where brados keeps its config, credentials, caches and data.
        /// - Throws: ``ConfigError`` for an unreadable config file or invalid profile name;
        ///   ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: nil)
            let paths: [(String, String)] = [
                ("config", env.paths.configFile.path),
                ("credentials", env.credentials.url.path),
                ("cache", env.paths.cacheRoot.path),
                ("data", env.paths.dataRoot.path),
                ("profile-cache", env.profile.cacheDirectory.path),
                ("profile-data", env.profile.dataDirectory.path),
            ]
            if env.output.format == .json { return try env.output.json(Dictionary(uniqueKeysWithValues: paths)) }
            env.output.table(Table(headers: ["WHAT", "PATH"], rows: paths.map { [$0.0, $0.1] }))
        }
    }
}
