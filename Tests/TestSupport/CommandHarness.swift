import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSServer
import BradOSStorage
import Foundation

/// A domain's commands run in the test process, through their `run(in:)`, the way the CLI's own
/// are (`CommandsInProcessTests`): a home of their own, a fake service, and the output
/// captured. The fake service is a ``StubTransport`` at ``server`` that answers by route (the
/// profile signed in to it), or the reference server's demo inside the process, as a
/// newcomer's first command has it (``init(plugins:demo:)``). No binary, no terminal, no
/// network beyond a Unix socket. The end-to-end tests keep what only a process shows.
public struct CommandHarness {
    /// Where every service of the profile is: the fake one.
    public static let server = "http://127.0.0.1:9"

    public let home = TemporaryDirectory()
    public let transport: StubTransport?
    public let plugins: [any DomainPlugin]
    let embedded: (any EmbeddedBackend)?

    /// - Parameters:
    ///   - services: the services besides the account one the profile is signed in to (`plex`, `supabase`).
    ///   - routes: the fake service's answer to each request (its index counts all requests).
    public init(plugins: [any DomainPlugin], signedIn services: [String] = [], userID: String = "u1",
                routes: @escaping StubTransport.Handler) throws {
        self.plugins = plugins
        embedded = nil
        transport = StubTransport(routes)
        let paths = Paths.resolve(environment: ["BRADOS_HOME": home.url.path])
        func session(_ user: String) -> Credential {
            Credential(accessToken: "token-\(user)", refreshToken: "refresh", expiresAt: nil, user: user, userID: userID,
                       server: Self.server, obtainedAt: Date())
        }
        var set = CredentialSet(account: session("demo"))
        for service in services { set.services[service] = session(service) }
        try CredentialStore(paths: paths, profile: .default).save(set)
    }

    /// The reference server's demo data, served inside the process: no server configured, so
    /// the environment starts it and signs in on its own, as `brados` does for a newcomer.
    public init(plugins: [any DomainPlugin], demo: Void = ()) {
        self.plugins = plugins
        embedded = DemoBackend()
        transport = nil
    }

    /// A fresh environment over the home (settings are read when it is built), with its output.
    public func environment(json: Bool = false, offline: Bool = false, now: @escaping @Sendable () -> Date = { Date() })
        throws -> (env: AppEnvironment, io: CapturingIO) {
        var variables = ["BRADOS_HOME": home.url.path, "HOME": home.url.path]
        if transport != nil { variables["BRADOS_SERVER"] = Self.server }
        let io = CapturingIO(environment: variables)
        var flags = GlobalFlags()
        flags.json = json
        flags.offline = offline
        // A retry against the stub never waits; the demo server answers at once anyway.
        let clock: any Clock<Duration> = transport == nil ? ContinuousClock() : ManualClock()
        let env = try AppEnvironment(io: io, flags: flags, plugins: plugins, embedded: embedded, transport: transport,
                                     clock: clock, now: now, random: { 0.5 })
        return (env, io)
    }

    /// Runs `command` with a fresh environment, and gives what it printed.
    /// - Throws: what the command throws.
    @discardableResult
    public func run(_ command: some EnvironmentCommand, json: Bool = false, offline: Bool = false) async throws -> CapturingIO {
        let (env, io) = try environment(json: json, offline: offline)
        let composition = Composition(plugins: plugins)
        try await composition.bind { try await command.run(in: env) }
        return io
    }

    /// The requests the fake service received, as `METHOD /path`.
    public var requests: [String] { transport?.requests.map { "\($0.method) \($0.url.path)" } ?? [] }
}

/// The reference server inside the test process, as `brados` embeds it when no server is set.
struct DemoBackend: EmbeddedBackend {
    func start(dataDirectory: URL, socket: String, password: String) async throws -> URL {
        try await ReferenceServer.startEmbedded(dataDirectory: dataDirectory, socket: socket, password: password)
    }
}
