import ArgumentParser
import BradOSCore
import BradOSStorage
import Foundation

extension ConfigCommand {
    public struct Set: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "set", abstract: "Write a setting to the config file.", discussion: "Examples:\n  brados config set server https://bradOS.example\n  brados config set \(HelpExamples.domainSetting.key) \(HelpExamples.domainSetting.value)") }
        @Argument(help: "The key (see `brados config list`).", completion: .custom { _, _, _ in CompletionValues.configKeys() }) var key: String
        @Argument(help: "The value (`brados config list` says what each key takes).",
                  completion: .custom { words, index, _ in CompletionValues.configValues(words, at: index) }) var value: String
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Checks the value by the key's rule and writes it to the config file.
        /// - Throws: ``ConfigError/unknownKey(_:known:)``, ``ConfigError/invalidValue(key:value:expected:)``; ``StorageError``
        ///   when the config file cannot be written.
        public func run(in env: AppEnvironment) async throws {
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
}
