import ArgumentParser
import BradOSCore
import BradOSErrors
import BradOSStorage
import Foundation

extension ConfigCommand {
    public struct Get: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "get", abstract: "Print a setting's effective value.", discussion: "Examples:\n  brados config get server\n  brados config get \(HelpExamples.domainKey)") }
        @Argument(help: ArgumentHelp("The key, e.g. server or \(HelpExamples.serviceKey)."), completion: .custom { _, _, _ in CompletionValues.configKeys() }) var key: String
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Prints the key's effective value.
        /// - Throws: ``ConfigError/unknownKey(_:known:)``; ``CommandError`` (not found) when the key is not set; ``ConfigError``
        ///   for an unreadable config file; ``StorageError/coding(path:detail:)``.
        public func run(in env: AppEnvironment) async throws {
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
}
