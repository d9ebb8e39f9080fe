import ArgumentParser
import BradOSArchive
import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

extension CacheCommand {
    public struct Clear: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = .exclusive(activity: "clearing the cache")
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "clear",
            abstract: "Remove cached data (all domains, or those named); what you made and have not sent stays.",
            discussion: """
            Only copies of the services' data go. Changes you made and have not sent yet (`brados plan pending`) \
            and history kept only on this machine (kept plans) stay, and the command says so; \
            --discard-pending drops the unsent changes too, naming them.
            Credentials are kept; use `brados auth logout` to sign out and erase everything.
            Examples:
              brados cache clear
              brados cache clear \(HelpExamples.domains(2))
              brados cache clear plan --discard-pending
            """) }
        @Argument(help: "Only these domains (all when none is named).", completion: .custom { _, _, _ in CompletionValues.domains() }) var domains: [String] = []
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Only these domains (same as naming them).", visibility: .hidden)) var domain: [String] = []
        @Flag(help: "Also drop the changes you made and have not sent yet (they are listed).") var discardPending = false
        @Flag(help: "Wait for another brados that holds the profile (a running sync --watch) as long as it takes, not profile.lock-timeout.")
        var wait = false
        public var waitsForProfile: Bool { wait }
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Removes the cached data of every domain, or of those named, holding the profile exclusively.
        /// - Throws: ``ConfigError/unknownDomain(_:known:)`` for a domain no plugin has; ``StorageError``
        ///   (``StorageError/profileBusy(profile:holder:)`` while another brados holds the profile), ``ConfigError``.
        public func run(in env: AppEnvironment) async throws {
            let cleared = try CacheInventory(env).clear(domains: domains + domain, discardPending: discardPending)
            if env.output.format == .json { return try env.output.json(cleared) }
            let bytes = cleared.reduce(Int64(0)) { $0 + $1.bytes }
            env.output.line("Cleared \(cleared.map(\.domain).joined(separator: ", ")) (\(Format.bytes(bytes))).")
            let unsent = cleared.flatMap(\.keptUnsent)
            if !unsent.isEmpty {
                env.output.line("Kept \(Format.count(unsent.count, "change")) you made and have not sent yet:")
                for change in unsent { env.output.line("  \(change.domain): \(change.summary), queued \(Format.ago(env.now().timeIntervalSince(change.createdAt)))") }
                let sends = Array(Set(unsent.map(\.send))).sorted()
                env.output.line(env.output.styled("Send \(unsent.count == 1 ? "it" : "them") with `\(sends.joined(separator: "`, `"))`, or drop \(unsent.count == 1 ? "it" : "them") with `brados cache clear --discard-pending`.", .dim))
            }
            for history in cleared.flatMap(\.keptHistory) {
                env.output.line("Kept \(history.described): history, not cache (`\(history.show)`).")
            }
            for unreadable in cleared.flatMap(\.keptUnreadable) {
                env.output.line("Kept \(unreadable.described).")
                env.output.line(env.output.styled("Repair or move the file; `brados plan pending` says what is wrong with it.", .dim))
            }
            let dropped = cleared.flatMap(\.discardedUnsent)
            for change in dropped {
                env.output.line("Dropped the unsent change \(change.domain): \(change.summary).")
            }
            if discardPending, dropped.isEmpty { env.output.line("There were no unsent changes to drop.") }
        }
    }
}
