import ArgumentParser
import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

extension ConfigCommand {
    public struct List: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static let configuration = CommandConfiguration(commandName: "list", abstract: "List every setting with its value and where it comes from.", discussion: "Examples:\n  brados config list\n  brados config list --json")
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Prints every setting with its value, source, environment variable and meaning.
        /// - Throws: ``ConfigError`` for an unreadable config file or invalid profile name;
        ///   ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
        public func run(in env: AppEnvironment) async throws {
            env.pageOutput()
            let all = env.settings.all()
            if env.output.format == .json { return try env.output.json(all) }
            let rows = zip(all, env.settings.keys).map { setting, key in
                [setting.key, setting.value ?? (setting.key.hasPrefix("server") ? "(embedded demo)" : "-"),
                 setting.source.rawValue, key.environmentVariable ?? "", key.summary]
            }
            // At 80 columns: the environment variable, then the source, give way to the meaning (wrapped).
            env.output.table(Table(headers: ["KEY", "VALUE", "SOURCE", "ENV", "MEANING"], rows: rows, keepWhole: [0, 1], dropFirst: [3, 2], wrapLast: true))
        }
    }
}
