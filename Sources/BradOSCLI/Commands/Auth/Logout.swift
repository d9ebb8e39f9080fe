import ArgumentParser
import BradOSArchive
import BradOSAuth
import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

extension AuthCommand {
    /// `brados auth logout`.
    public struct Logout: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = .exclusive(activity: "signing out")
        public static let configuration = CommandConfiguration(commandName: "logout", 
            abstract: "Sign out and erase every cache of the profile.",
            discussion: """
            The session is revoked on the server when it can be reached; local data is erased either way.
            Changes you made and have not sent yet (`brados plan pending`) are named first: on a \
            terminal you are asked whether to erase them; otherwise the sign-out stops unless \
            --discard-pending (send them first with `brados plan sync`).
            The profile's age key (`brados keys`) is not cache: archives encrypted to it open only \
            with it. On a terminal you are asked whether to remove it; otherwise it is kept unless \
            --remove-key.
            Examples:
              brados auth logout
              brados --profile old auth logout --remove-key
              brados auth logout --discard-pending
            """)
        @Flag(help: "Also remove the profile's age key, without asking.") var removeKey = false
        @Flag(help: "Erase changes you made and have not sent yet, without asking (they are listed).") var discardPending = false
        @Flag(help: "Keep the profile's age key, without asking.") var keepKey = false
        @Flag(help: "Wait for another brados that holds the profile (a running sync --watch) as long as it takes, not profile.lock-timeout.")
        var wait = false
        public var waitsForProfile: Bool { wait }
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Refuses `--remove-key` with `--keep-key`.
        /// - Throws: `ValidationError` when both are given.
        public func validate() throws {
            if removeKey && keepKey { throw ValidationError("--remove-key and --keep-key cannot go together.") }
        }

        /// Signs out, erases every cache of the profile and, when asked, removes its age key.
        /// - Throws: ``StorageError`` (``StorageError/profileBusy(profile:holder:)`` while another brados holds the profile),
        ///   ``ConfigError``.
        public func run(in env: AppEnvironment) async throws {
            // What the person made and has not sent is named before anything is revoked or erased.
            let personal = try env.plugins.personalData(in: env.profile, forms: env.output.forms)
            let unsent = personal.flatMap(\.data.unsent)
            let unreadable = personal.flatMap(\.data.unreadable)
            let count = unsent.count + unreadable.count
            if count > 0, !discardPending {
                let changes = unsent.map { "\($0.domain): \($0.summary), queued \(Format.ago(env.now().timeIntervalSince($0.createdAt)))" }
                    + unreadable.map { "\($0.domain): \($0.described) (copy it elsewhere to keep it)" }
                let send = Array(Set(unsent.map(\.send))).sorted()
                guard env.io.isInputTerminal else {
                    throw AuthError.unsentChanges(profile: env.profile.name.rawValue, changes: changes, send: send, interactive: false)
                }
                env.output.notice("\(Format.count(count, "change")) you made \(count == 1 ? "has" : "have") not been sent yet:\n"
                    + changes.map { "  " + $0 }.joined(separator: "\n"))
                let sends = send.isEmpty ? "" : " (`\(send.joined(separator: "`, `"))` sends \(unsent.count == 1 ? "it" : "them"))"
                guard env.io.confirm("Sign out and erase \(count == 1 ? "it" : "them") with the profile?\(sends)") else {
                    throw AuthError.unsentChanges(profile: env.profile.name.rawValue, changes: changes, send: send, interactive: true)
                }
            }
            var report = try await Sessions(env).logout()
            report.discardedUnsent = unsent
            report.erasedHistory = personal.flatMap(\.data.history)
            report.erasedUnreadable = unreadable
            try AuthRenderer(output: env.output, now: env.now()).loggedOut(report)
            let keys = ArchiveKeyStore(paths: env.paths, profile: env.profile.name)
            guard FileSystem.exists(keys.url), !keepKey else { return }
            let recipient = (try? keys.load())?.recipient.string ?? "unreadable"
            let remove = removeKey || (env.io.isInputTerminal && env.io.confirm(
                "Also remove the age key of profile '\(env.profile.name)' (\(recipient))? Archives encrypted to it can then no longer be opened"))
            if remove {
                try keys.remove()
                env.output.notice("removed the age key of profile '\(env.profile.name)' (\(recipient))")
            } else {
                env.output.notice("kept the age key of profile '\(env.profile.name)' in \(keys.url.path) (`brados auth logout --remove-key` removes it)")
            }
        }
    }
}
