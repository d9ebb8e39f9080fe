import ArgumentParser
import BradOSArchive
import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSTerminal
import Foundation

extension AuthCommand {
    /// `brados auth login`.
    public struct Login: EnvironmentCommand {
        /// A sign-in is how a profile starts.
        public static let startsProfile = true
        public static var configuration: CommandConfiguration { CommandConfiguration(commandName: "login", 
            abstract: "Sign in; a password is asked for on a terminal (never echoed) or read from standard input, never from an argument.",
            discussion: """
            At a terminal, brados asks for the password without showing it; scripts pipe it in \
            with --password-stdin. With no server configured, `brados auth login` (no --user) \
            signs the profile in to the built-in demo backend.
            Services: \(ServiceDescription.all(Composition.current.plugins).map { "\($0.service.rawValue) (\($0.summary))" }.joined(separator: ", ")).
            \(linkedServices.isEmpty ? "" : """
            Services with an account server of their own (\(linkedServices.joined(separator: ", "))): \
            with no --user, brados asks it for a code, prints the page to approve it on, and waits \
            (--no-wait prints the code and exits; --pin ID resumes). --token-stdin takes a token \
            from an app already signed in (with server.NAME set, a token of that server, checked \
            there and used with it alone, without the account server); --user NAME --password-stdin (and --code for two-factor \
            accounts) signs in with a password.

            """)Examples:
              brados auth login --user demo
              printf %s "$PASS" | brados auth login --user demo --password-stdin
            """ + (HelpExamples.dedicatedService.map { "\n  brados auth login --user me@example.com --password-stdin --service \($0) < pass.txt" } ?? "")
              + linkedServices.prefix(1).map { """

                  brados auth login --service \($0)
                  brados auth login --service \($0) --no-wait --json
                  brados auth login --service \($0) --token-stdin < token.txt
                  printf %s "$PASS" | brados auth login --service \($0) --user me@example.com --password-stdin --code 123456
                """ }.joined()) }

        /// Services whose accounts live on an account server (sign-in with a code, a token or a password).
        static var linkedServices: [String] { ServiceDescription.all(Composition.current.plugins).filter { $0.signIn != nil }.map(\.service.rawValue) }

        @Option(help: "The user name (or e-mail).") var user: String?
        @Flag(help: "Read the password from standard input (scripts; at a terminal brados asks for it, never echoed).")
        var passwordStdin = false
        @Option(help: ArgumentHelp("Sign in to one service's own server: \(ServiceDescription.all(Composition.current.plugins).map(\.service.rawValue).joined(separator: ", ")).", valueName: "name"))
        var service: String?
        @Flag(help: "Read an existing token of the service from standard input (services with an account server).")
        var tokenStdin = false
        @Option(help: ArgumentHelp("The two-factor verification code, with --user.", valueName: "code")) var code: String?
        @Option(help: ArgumentHelp("Resume waiting for a code printed by --no-wait.", valueName: "id")) var pin: String?
        @Flag(help: "Print the code to approve and exit (resume with --pin ID).") var noWait = false
        @OptionGroup public var global: GlobalOptions

        public init() {}

        /// Checks that the flags go together (a password only on standard input, `--pin` alone, a known service).
        /// - Throws: `ValidationError` for an unknown service or flags that do not go together.
        public func validate() throws {
            let known = ServiceDescription.all(Composition.current.plugins).map(\.service.rawValue)
            if let service, !known.contains(service) {
                if let renamed = ServiceDescription.renamed(service, in: Composition.current.plugins) {
                    throw ValidationError("The service '\(service)' is now called '\(renamed)': use --service \(renamed).")
                }
                throw ValidationError("Unknown service '\(service)': expected one of \(known.joined(separator: ", ")).")
            }
            let linked = service.map(AccountServers.has) ?? false
            if !linked, tokenStdin || pin != nil || noWait {
                let names = Self.linkedServices.map { "--service \($0)" }.joined(separator: ", ")
                throw ValidationError("--token-stdin, --pin and --no-wait sign in to a service with an account server\(names.isEmpty ? "" : " (\(names))").")
            }
            if tokenStdin, user != nil || passwordStdin { throw ValidationError("--token-stdin signs in with the token alone: drop --user and --password-stdin.") }
            if pin != nil, user != nil || passwordStdin || tokenStdin || noWait { throw ValidationError("--pin resumes a code sign-in: it goes alone.") }
            if noWait, user != nil || passwordStdin || tokenStdin { throw ValidationError("--no-wait goes with a code sign-in (no --user, no --token-stdin).") }
            if code != nil, user == nil { throw ValidationError("--code goes with --user NAME.") }
            if passwordStdin, user == nil { throw ValidationError("--password-stdin needs --user NAME.") }
        }

        /// Signs the profile in: with a password, or through a service's account server (a password, a token, or a code
        /// approved in a browser).
        /// - Throws: ``AuthError`` (``AuthError/emptyPassword``, ``AuthError/emptyToken``, refused credentials),
        ///   ``NetworkError``, ``ConfigError``, ``StorageError``; `CancellationError` when waiting for a code is interrupted.
        public func run(in env: AppEnvironment) async throws {
            let service = self.service.map(Service.init(rawValue:))
            if let service, let flow = try env.services.first(where: { $0.service == service })?.signIn?(env) {
                return try await signIn(env, flow: flow, service: service)
            }
            guard let user else {
                // No server: the built-in demo backend, whose demo account the profile is signed in to.
                guard env.network.usesEmbedded(service ?? .account) else {
                    throw ValidationError("Pass --user NAME (brados then asks for the password; scripts add --password-stdin).")
                }
                let target = service ?? .account
                _ = try await env.client(for: target)
                guard let credential = try env.credentials.loadForUpdate().credential(for: target, dedicated: await env.network.isDedicated(target)) else {
                    throw AuthError.notSignedIn(profile: env.profile.name.rawValue)
                }
                return try signedIn(env, credential)
            }
            let password = try self.password(for: user, env: env)
            let credential = try await Sessions(env).login(user: user, password: password, service: service)
            try signedIn(env, credential)
        }

        /// The password: asked for on the terminal without echo when standard input is one
        /// (as gh and docker ask), else read from standard input with `--password-stdin`.
        /// - Throws: ``AuthError/passwordNeeded(user:)`` with no terminal and no `--password-stdin`;
        ///   ``AuthError/emptyPassword`` when none was given.
        func password(for user: String, env: AppEnvironment) throws -> String {
            let password: String
            if env.io.isInputTerminal, let typed = env.io.readSecret(prompt: "Password for \(user): ") {
                password = typed
            } else if passwordStdin {
                password = Self.password(from: env.io.readInput())
            } else {
                throw AuthError.passwordNeeded(user: user)
            }
            guard !password.isEmpty else { throw AuthError.emptyPassword }
            return password
        }

        /// A service with an account server: a password, a token, or a code to approve.
        func signIn(_ env: AppEnvironment, flow: any ServiceSignIn, service: Service) async throws {
            let auth = Sessions(env)
            let transport = env.network.httpTransport
            if env.isOffline { throw NetworkError.offlineMode }
            if let user {
                let password = try self.password(for: user, env: env)
                let credential = try await flow.signIn(user: user, password: password, code: code, transport: transport)
                try await auth.save(credential, service: service)
                return try signedIn(env, credential)
            }
            if tokenStdin {
                let token = String(decoding: env.io.readInput(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                guard !token.isEmpty else { throw AuthError.emptyToken }
                // The token goes where the configuration says: say so when that is not the account server.
                let destination = try flow.tokenServer()
                if destination != (try flow.accountServer()) {
                    env.output.notice("checking the token with the server at \(destination.absoluteString) (server.\(service.rawValue)), not \((try flow.accountServer()).absoluteString); it is used with that server alone")
                }
                let credential = try await flow.signIn(token: token, transport: transport)
                try await auth.save(credential, service: service)
                return try signedIn(env, credential)
            }
            let link: SignInLink
            if let pin {
                link = SignInLink(id: pin, code: "", url: "", expiresAt: env.now())
            } else {
                link = try await flow.startLink(transport: transport)
                if noWait {
                    if env.output.format == .json { return try env.output.json(link) }
                    env.output.line("Code: \(link.code)")
                    env.output.line("Approve it at: \(link.url)")
                    env.output.line("Then run: brados auth login --service \(service.rawValue) --pin \(link.id)\(env.profile.name == .default ? "" : " --profile \(env.profile.name)")")
                    return
                }
                let minutes = max(1, Int(link.expiresAt.timeIntervalSince(env.now()) / 60))
                if env.io.isErrorTerminal {
                    env.output.notice("to sign in to \(service.rawValue), open this page and approve the code \(link.code):\n  \(link.url)\n(the code expires in \(minutes) min; Ctrl-C stops waiting, --pin \(link.id) resumes)")
                } else {
                    env.output.notice("sign in to \(service.rawValue): approve code \(link.code) at \(link.url) (pin \(link.id), expires in \(minutes) min)")
                }
            }
            let spinner = Spinner(io: env.io, message: "waiting for the code to be approved")
            defer { spinner.stop() }
            let credential = try await auth.waitForApproval(link, flow: flow, service: service) { left in
                let seconds = Int(left.components.seconds)
                spinner.update(message: "waiting for the code to be approved (\(seconds / 60):\(String(format: "%02d", seconds % 60)) left)")
            }
            spinner.stop()
            try signedIn(env, credential)
        }

        func signedIn(_ env: AppEnvironment, _ credential: Credential) throws {
            let status = Sessions(env).status(askKeyring: false)
            if env.output.format == .json { return try env.output.json(status) }
            let server = credential.server == Credential.embeddedServer ? "the built-in demo backend" : credential.server
            env.output.line("Signed in as \(credential.user) on \(server) (profile \(env.profile.name)).")
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
}
