import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation

extension CacheCommand {
    public struct Clear: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = .exclusive(activity: "clearing the cache")
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "clear", 
            abstract: "Remove cached data (all domains, or those named).",
            discussion: "Credentials are kept; use `brados auth logout` to sign out and erase everything.\nExamples:\n  brados cache clear\n  brados cache clear \(HelpExamples.domains(2))") }
        @Argument(help: "Only these domains (all when none is named).", completion: .custom { _, _, _ in CompletionValues.domains() }) var domains: [String] = []
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Only these domains (same as naming them).", visibility: .hidden)) var domain: [String] = []
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Removes the cached data of every domain, or of those named, holding the profile exclusively.
        /// - Throws: ``ConfigError/unknownDomain(_:known:)`` for a domain no plugin has; ``StorageError``
        ///   (``StorageError/profileBusy(profile:holder:)`` while another brados holds the profile), ``ConfigError``.
        public func run(in env: AppEnvironment) async throws {
            let removed = try CacheInventory(env).clear(domains: domains + domain)
            if env.output.format == .json { return try env.output.json(removed) }
            let bytes = removed.reduce(Int64(0)) { $0 + $1.bytes }
            env.output.line("Cleared \(removed.map(\.domain).joined(separator: ", ")) (\(Format.bytes(bytes))).")
        }
    }
}
