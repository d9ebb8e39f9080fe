import ArgumentParser
import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

extension ConfigCommand {
    public struct Path: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static let configuration = CommandConfiguration(commandName: "path", abstract: "Show where brados keeps its files.", discussion: "Examples:\n  brados config path")
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Prints where brados keeps its config, credentials, caches and data.
        /// - Throws: ``ConfigError`` for an unreadable config file or invalid profile name;
        ///   ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
        public func run(in env: AppEnvironment) async throws {
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
