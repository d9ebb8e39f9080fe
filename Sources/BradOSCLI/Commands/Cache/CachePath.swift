import AgeEncryption
import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

extension CacheCommand {
    /// `brados cache path`.
    public struct Path: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static let configuration = CommandConfiguration(commandName: "path", abstract: "Print where the profile's caches and data live.", discussion: "Examples:\n  brados cache path\n  du -sh $(brados cache path)")
        @OptionGroup public var global: GlobalOptions
        public init() {}
        /// Prints the profile's cache and data folders, one a line (or as JSON).
        /// - Throws: ``ConfigError`` for an unreadable config file or invalid profile name;
        ///   ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
        public func run(in env: AppEnvironment) async throws {
            if env.output.format == .json {
                return try env.output.json(["cache": env.profile.cacheDirectory.path, "data": env.profile.dataDirectory.path])
            }
            env.output.line(env.profile.cacheDirectory.path)
            env.output.line(env.profile.dataDirectory.path)
        }
    }
}
