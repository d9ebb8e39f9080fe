import ArgumentParser
import BradOSCore
import Foundation

extension ConfigCommand {
    public struct Path: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "path", abstract: "Show where brados keeps its files.", discussion: "Examples:\n  brados config path")
        @OptionGroup var global: GlobalOptions
        public init() {}

        /// Runs in the environment of the `brados` process (``AppEnvironment/live(_:access:)``).
        public func run() async throws {
            try await run(in: AppEnvironment.live(global, access: nil))
        }

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
