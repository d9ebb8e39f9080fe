import BradOSAuth
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Logging

/// Decides where each service lives and builds signed-in clients.
///
/// With `--offline` every client uses ``OfflineTransport``: no socket is ever opened.
/// When no server is configured for a service, the embedded reference backend is started
/// (once per process, on first need), its use is announced once on stderr, and a profile
/// with no credentials is signed in as the demo user.
public actor NetworkAccess {
    let settings: Settings
    let paths: Paths
    let profile: ProfileName
    let transport: any HTTPTransport
    let embedded: (any EmbeddedBackend)?
    let retrier: Retrier
    let output: Output
    let logger: Logger
    let now: @Sendable () -> Date
    /// The profile's credentials.
    let credentials: CredentialStore
    /// Whether a request that waits to be retried says so on stderr (a person waits for it);
    /// off in `sync --watch`, whose own lines say when a service is unreachable and back.
    let retryNotices: Bool
    private var embeddedURL: URL?
    private var embeddedStart: Task<URL, any Error>?
    private var accounts: [Service: any AccountProtocol] = [:]

    /// The demo account the embedded backend signs profiles into (its password is the
    /// profile's own, see ``EmbeddedAccount``).
    public static let demoUser = "demo"

    init(settings: Settings, paths: Paths, profile: ProfileName, transport: any HTTPTransport, embedded: (any EmbeddedBackend)?,
         retrier: Retrier, output: Output, logger: Logger, now: @escaping @Sendable () -> Date, credentials: CredentialStore,
         accounts: [Service: any AccountProtocol] = [:], retryNotices: Bool = true) {
        self.retryNotices = retryNotices
        self.accounts = accounts
        self.credentials = credentials
        self.settings = settings
        self.paths = paths
        self.profile = profile
        self.transport = transport
        self.embedded = embedded
        self.retrier = retrier
        self.output = output
        self.logger = logger
        self.now = now
    }

    /// Uses `account` to sign in to and renew sessions with `service` (BradOS REST by default).
    public func register(_ account: any AccountProtocol, for service: Service) { accounts[service] = account }

    /// The sign-in protocol of a service.
    public func account(for service: Service) -> any AccountProtocol { accounts[service] ?? BradOSAccountProtocol(now: now) }

    /// The transport every request goes through.
    public nonisolated var httpTransport: any HTTPTransport { transport }

    /// The base URL of a service, starting the embedded backend if none is configured.
    /// - Throws: ``NetworkError/offlineMode`` when offline; ``NetworkError/unreachable(host:reason:)``
    ///   when no server is configured and no embedded backend is available.
    public func baseURL(for service: Service) async throws -> URL {
        if settings.isOffline { throw NetworkError.offlineMode }
        if let configured = try settings.serverURL(for: service) { return configured.url }
        return try await startEmbedded()
    }

    /// Whether a service has its own accounts (its own sign-in protocol), apart from the BradOS account.
    public func isDedicated(_ service: Service) -> Bool { accounts[service] != nil }

    /// Whether a service is served by the embedded backend.
    public nonisolated func usesEmbedded(_ service: Service) -> Bool { (try? settings.serverURL(for: service)) == nil }

    /// Starts the embedded backend once, however many requests ask for it at once (`sync
    /// --watch` runs its domains side by side: a second start would find the socket bound).
    private func startEmbedded() async throws -> URL {
        if let embeddedURL { return embeddedURL }
        if let embeddedStart { return try await embeddedStart.value }
        let start = Task { try await self.startEmbeddedOnce() }
        embeddedStart = start
        defer { embeddedStart = nil }
        return try await start.value
    }

    private func startEmbeddedOnce() async throws -> URL {
        if let embeddedURL { return embeddedURL }
        guard let embedded else {
            throw NetworkError.unreachable(host: "(no server configured)", reason: "set one with `brados config set server URL`")
        }
        let account = EmbeddedAccount(profile: paths.profile(profile))
        let url = try await embedded.start(dataDirectory: try account.prepare(), socket: try account.socketPath(), password: try account.password())
        embeddedURL = url
        // Once per profile (`brados doctor` says it every time).
        if account.firstUse() {
            output.notice("no server configured; using the built-in demo backend. Set a real one with `brados config set server URL`.")
        }
        logger.debug("embedded backend started", metadata: ["url": "\(url.absoluteString)"])
        return url
    }

    /// A signed-in client for a service.
    /// - Throws: ``NetworkError``, ``AuthError``.
    public func client(for service: Service, authScheme: AuthScheme) async throws -> APIClient {
        if settings.isOffline { throw NetworkError.offlineMode }
        let base = try await baseURL(for: service)
        let store = credentials
        // A service with its own sign-in protocol has its own accounts: it never borrows the
        // BradOS account's session (nor writes a renewal into it).
        let dedicated = isDedicated(service)
        // Read once (a secret the keyring holds and cannot give is an error, not a sign-out); again only after a sign-in wrote them.
        var credentials = try store.loadForUpdate()
        if usesEmbedded(service), credentials.credential(for: service, dedicated: dedicated) == nil {
            try await signInDemo(service: service, store: store, server: base)
            credentials = try store.loadForUpdate()
        }
        guard let credential = credentials.credential(for: service, dedicated: dedicated) else {
            throw dedicated ? AuthError.serviceNotSignedIn(profile: profile.rawValue, service: service.rawValue)
                            : AuthError.notSignedIn(profile: profile.rawValue)
        }
        // A session only ever goes to the server that issued it (so it also renews there).
        if !credential.isIssued(by: base, embedded: usesEmbedded(service)) {
            throw AuthError.signedInElsewhere(profile: profile.rawValue, service: service.rawValue,
                                              signedInTo: credential.server, using: usesEmbedded(service) ? "the built-in demo backend" : base.absoluteString)
        }
        let authenticator = TokenAuthenticator(
            service: service, store: store, account: account(for: service), server: base,
            transport: transport, logger: logger, dedicated: dedicated, embedded: usesEmbedded(service))
        var client = APIClient(service: service, baseURL: base, transport: transport, authenticator: authenticator,
                               authScheme: authScheme, retrier: retrier, logger: logger, profile: profile.rawValue)
        if retryNotices {
            client.waitNotice = { [output] in output.notice($0) }
            client.waitNoticeInterruptible = output.io.isInputTerminal
        }
        return client
    }

    /// Signs the profile in as the demo user of the embedded backend, through the service's
    /// own sign-in protocol when it has one (the session then belongs to that service only).
    private func signInDemo(service: Service, store: CredentialStore, server: URL) async throws {
        let ownProtocol = accounts[service]
        var credential = try await account(for: service).login(
            user: Self.demoUser, password: try EmbeddedAccount(profile: paths.profile(profile)).password(), server: server, transport: transport)
        credential.server = Credential.embeddedServer
        try await FileLock.withExclusiveLock(at: store.lockURL, timeout: .seconds(60)) {
            var credentials = try store.loadForUpdate()
            if ownProtocol != nil { credentials.services[service.rawValue] = credential } else { credentials.account = credential }
            try store.save(credentials)
        }
        output.notice("signed profile '\(profile)' in as the demo user.")
    }
}
