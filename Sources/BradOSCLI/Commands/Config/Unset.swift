import ArgumentParser
import BradOSCore
import BradOSStorage
import Foundation

extension ConfigCommand {
    public struct Unset: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "unset", abstract: "Remove a setting from the config file.", discussion: "Examples:\n  brados config unset \(HelpExamples.serviceKey)") }
        @Argument(help: "The key.", completion: .custom { _, _, _ in CompletionValues.configKeys() }) var key: String
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Removes the key from the config file.
        /// - Throws: ``ConfigError/unknownKey(_:known:)``; ``StorageError`` when the config file cannot be written.
        public func run(in env: AppEnvironment) async throws {
            guard env.settings.key(named: key) != nil else {
                throw ConfigError.unknownKey(key, known: env.settings.keys.map(\.name))
            }
            try ConfigFile.update(at: env.paths.configFile) { $0.values[key] = nil }
            if env.output.format == .json { return try env.output.json(env.settings.resolve(key)) }
            env.output.line("\(key) unset")
        }
    }
}
