import ArgumentParser
import Foundation

/// `brados auth`: sign in and out of a profile.
public struct AuthCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Sign in, check, switch and sign out profiles.",
        discussion: """
        Credentials live in the config directory (mode 0600), never in the cache. \
        Signing out erases every cache of the profile.
        Examples:
          echo PASSWORD | brados auth login --user demo --password-stdin
          brados auth status --check
          brados auth switch work
          brados auth logout
        """,
        subcommands: [Login.self, Status.self, Switch.self, Logout.self])

    public init() {}
}

extension AuthCommand {
    /// `brados auth login`.
    public struct Login: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "login", 
            abstract: "Sign in; the password is read from standard input.",
            discussion: """
            Services: \(ServiceDescription.all(Runtime.plugins).map { "\($0.service.rawValue) (\($0.summary))" }.joined(separator: ", ")).
            Examples:
              printf %s "$PASS" | brados auth login --user demo --password-stdin
            """ + (HelpExamples.dedicatedService.map { "\n  brados auth login --user me@example.com --password-stdin --service \($0) < pass.txt" } ?? ""))

        @Option(help: "The user name (or e-mail).") var user: String
        @Flag(help: "Read the password from standard input (required: never pass a password as an argument).")
        var passwordStdin = false
        @Option(help: ArgumentHelp("Sign in to one service's own server: \(ServiceDescription.all(Runtime.plugins).map(\.service.rawValue).joined(separator: ", ")).", valueName: "name"))
        var service: String?
        @OptionGroup var global: GlobalOptions

        public init() {}

        public func validate() throws {
            guard passwordStdin else { throw ValidationError("Pass the password on standard input with --password-stdin.") }
            let known = ServiceDescription.all(Runtime.plugins).map(\.service.rawValue)
            if let service, !known.contains(service) {
                throw ValidationError("Unknown service '\(service)': expected one of \(known.joined(separator: ", ")).")
            }
        }

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            let password = Self.password(from: env.io.readInput())
            guard !password.isEmpty else { throw AuthError.emptyPassword }
            let credential = try await AuthService(env).login(user: user, password: password, service: service.map(Service.init(rawValue:)))
            let status = AuthService(env).status()
            if env.output.format == .json { return try env.output.json(status) }
            env.output.line("Signed in as \(credential.user) on \(credential.server) (profile \(env.profile.name)).")
            if !status.active { env.output.line("Make it the active profile with: brados auth switch \(env.profile.name)") }
        }

        /// The password from stdin without its one trailing line ending (`\n` or `\r\n`), as `echo` adds.
        static func password(from input: Data) -> String {
            var bytes = [UInt8](input)
            if bytes.last == 0x0A {
                bytes.removeLast()
                if bytes.last == 0x0D { bytes.removeLast() }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// `brados auth status`.
    public struct Status: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "status", 
            abstract: "Show who the profile is signed in as.",
            discussion: "Reads local state only, unless --check asks the server (renewing an expired token). Exits 4 when signed out.\nExamples:\n  brados auth status\n  brados auth status --check --json")
        @Flag(help: "Verify the session with the server.") var check = false
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global)
            // Verified first: a renewed token shows in the status.
            let verified = check ? try await AuthService(env).verify() : nil
            var status = AuthService(env).status()
            status.verified = verified
            try AuthRenderer(output: env.output, now: env.now()).status(status)
            // Like `gh auth status`: exit 4 when signed out, in both output formats.
            if !status.signedIn { throw AuthError.notSignedIn(profile: status.profile) }
        }
    }

    /// `brados auth switch`.
    public struct Switch: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "switch", abstract: "Make another profile the active one.", discussion: "Examples:\n  brados auth switch work\n  brados --profile work cache stats")
        @Argument(help: "The profile name.", completion: .custom { _, _, _ in CompletionValues.profiles() }) var profile: String
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: nil)
            let profile = try AuthService(env).switchProfile(to: self.profile)
            let signedIn = !CredentialStore(paths: env.paths, profile: profile).load().isEmpty
            if env.output.format == .json { return try env.output.json(["profile": profile.rawValue, "signedIn": "\(signedIn)"]) }
            env.output.line("Active profile: \(profile)\(signedIn ? "" : " (not signed in yet: brados auth login --user NAME --password-stdin)")")
        }
    }

    /// `brados auth logout`.
    public struct Logout: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(commandName: "logout", 
            abstract: "Sign out and erase every cache of the profile.",
            discussion: "The session is revoked on the server when it can be reached; local data is erased either way.\nExamples:\n  brados auth logout\n  brados --profile old auth logout")
        @OptionGroup var global: GlobalOptions
        public init() {}

        public func run() async throws {
            let env = try await AppEnvironment.live(global, access: .exclusive(activity: "signing out"))
            try AuthRenderer(output: env.output, now: env.now()).loggedOut(try await AuthService(env).logout())
        }
    }
}
