import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Logging

/// The media server a profile uses, as plex.tv listed it: saved beside the Plex session in the
/// credentials folder (its token and addresses must come from plex.tv, never from a cache or
/// an archive), with the address that answered last.
public struct PlexServerChoice: Codable, Sendable, Equatable {
    public var name: String
    public var machineIdentifier: String
    public var owned: Bool
    /// The server's own token for this account (a shared server's differs from the owner's).
    public var accessToken: String
    /// The addresses plex.tv listed, in the order to prefer them: local, remote, relay; https first.
    public var connections: [PlexAccount.Resource.Connection]
    /// The address that answered `GET /identity` with this server's machine identifier.
    public var working: String?
}

/// `brados library servers` and `library use`, and the connection to the chosen server.
///
/// Connecting works the way Plex clients do: every address plex.tv lists is probed at once
/// with a short timeout (`GET /identity`, no token), and the most preferred one that answers
/// with the server's `machineIdentifier` is kept; the next command goes straight to it. When
/// it stops answering, the addresses are probed once more before the server is reported
/// unreachable. The account token only goes to the account server, each server's token only
/// to addresses that proved to be that server.
public struct PlexServers: Sendable {
    let env: AppEnvironment
    /// How long one address may take to answer a probe.
    var probeTimeout: Duration = .seconds(3)

    public init(_ env: AppEnvironment) { self.env = env }

    static let attachmentName = "server"

    /// The profile's Plex session, if it signed in through plex.tv (or a token stored in the
    /// keyring by hand: read as for a request, which looks there).
    var session: Credential? { (try? env.credentials.loadForUpdate())?.services[Service.plex.rawValue] }

    /// Whether the session is a media server's own token (`server.plex` and `--token-stdin`).
    var isDirect: Bool { session?.directServer != nil }

    /// The media server a direct session belongs to: `server.plex`, which must be the server
    /// that took the token (a token never goes to another host).
    /// - Throws: ``AuthError/signedInElsewhere(profile:service:signedInTo:using:)``, ``ConfigError``.
    func directServer() throws -> URL {
        guard let session else { throw AuthError.serviceNotSignedIn(profile: env.profile.name.rawValue, service: Service.plex.rawValue) }
        let own = try env.settings.ownServerURL(for: .plex)
        guard let own, session.isIssued(by: own, embedded: false) else {
            throw AuthError.signedInElsewhere(profile: env.profile.name.rawValue, service: Service.plex.rawValue, signedInTo: session.server,
                                              using: own?.absoluteString ?? "plex.tv (server.plex is not set)")
        }
        return own
    }

    /// Which media server the library's cache belongs to (read locally): the machine identifier
    /// of the server signed in to directly or chosen through plex.tv (`plex.tv` before one is
    /// chosen, which nothing is saved under); `nil` without a Plex sign-in.
    public var origin: String? {
        guard let session else { return nil }
        if let machine = session.directServer { return machine }
        return chosen?.machineIdentifier ?? "plex.tv"
    }

    /// The chosen server, if any.
    public var chosen: PlexServerChoice? { env.credentials.attachment(PlexServerChoice.self, Self.attachmentName, of: .plex) }

    /// The account token, for the account server that issued it only.
    func accountToken(_ account: PlexAccount) throws -> String {
        guard let session else { throw AuthError.serviceNotSignedIn(profile: env.profile.name.rawValue, service: Service.plex.rawValue) }
        guard session.isIssued(by: account.server, embedded: false) else {
            throw AuthError.signedInElsewhere(profile: env.profile.name.rawValue, service: Service.plex.rawValue,
                                              signedInTo: session.server, using: account.server.absoluteString)
        }
        return session.accessToken
    }

    /// The account's media servers.
    /// - Throws: ``AuthError``, ``NetworkError``.
    public func list() async throws -> [PlexAccount.Resource] {
        if env.isOffline { throw NetworkError.offlineMode }
        if isDirect { throw LibraryError.signedInToServer(try directServer().absoluteString) }
        let account = try PlexAccount.live(env)
        return try await account.servers(token: try accountToken(account), profile: env.profile.name.rawValue, transport: env.network.httpTransport)
    }

    /// Chooses a server by name (any case) or machine identifier, and connects to it.
    /// - Throws: ``LibraryError/noSuchServer(_:available:)``, ``LibraryError/serverUnreachable(_:tried:)``, ``AuthError``, ``NetworkError``.
    public func use(_ name: String) async throws -> PlexServerChoice {
        let servers = try await list()
        guard let resource = servers.first(where: { $0.clientIdentifier == name }) ?? servers.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame })
        else { throw LibraryError.noSuchServer(name, available: servers.map(\.name)) }
        return try await connect(try Self.choice(resource))
    }

    /// A listed server as a choice: its addresses in the order to prefer them.
    static func choice(_ resource: PlexAccount.Resource) throws -> PlexServerChoice {
        guard let token = resource.accessToken, !token.isEmpty else {
            throw NetworkError.invalidResponse(path: "/api/v2/resources", detail: "the server '\(resource.name)' has no accessToken")
        }
        // Only http(s) addresses with a host: a token is never sent to anything else.
        let connections = (resource.connections ?? []).filter { ConfigKey.urlValidator($0.uri) == nil }
        return PlexServerChoice(name: resource.name, machineIdentifier: resource.clientIdentifier, owned: resource.owned ?? false,
                                accessToken: token, connections: ordered(connections), working: nil)
    }

    /// Local before remote before relay, https before http; plex.tv's order otherwise.
    static func ordered(_ connections: [PlexAccount.Resource.Connection]) -> [PlexAccount.Resource.Connection] {
        func rank(_ connection: PlexAccount.Resource.Connection) -> (Int, Int) {
            let tier = connection.relay == true ? 2 : connection.local == true ? 0 : 1
            let secure = URL(string: connection.uri)?.scheme?.lowercased() == "https" ? 0 : 1
            return (tier, secure)
        }
        return connections.enumerated().sorted { left, right in
            let (a, b) = (rank(left.element), rank(right.element))
            return a != b ? a < b : left.offset < right.offset
        }.map(\.element)
    }

    /// Probes every address at once and saves the most preferred one that proved to be the server.
    /// - Throws: ``LibraryError/serverUnreachable(_:tried:)``.
    public func connect(_ choice: PlexServerChoice) async throws -> PlexServerChoice {
        let answered = await withTaskGroup(of: (Int, Bool).self) { group in
            for (index, connection) in choice.connections.enumerated() {
                group.addTask { (index, await probe(connection.uri, machineIdentifier: choice.machineIdentifier)) }
            }
            var answered: Set<Int> = []
            for await (index, ok) in group where ok { answered.insert(index) }
            return answered
        }
        guard let best = choice.connections.indices.first(where: answered.contains) else {
            throw LibraryError.serverUnreachable(choice.name, tried: choice.connections.map(\.uri))
        }
        var connected = choice
        connected.working = choice.connections[best].uri
        try await FileLock.withExclusiveLock(at: env.credentials.lockURL, timeout: .seconds(60)) {
            try env.credentials.saveAttachment(connected, Self.attachmentName, of: .plex)
        }
        env.logger.debug("connected to Plex server", metadata: ["server": "\(choice.name)", "uri": "\(connected.working ?? "")"])
        return connected
    }

    /// Whether `uri` answers `GET /identity` as the server `machineIdentifier`.
    func probe(_ uri: String, machineIdentifier: String) async -> Bool {
        guard let url = URL(string: uri + "/identity") else { return false }
        env.logger.debug("probing Plex connection", metadata: ["uri": "\(uri)"])
        struct Identity: Decodable {
            struct Container: Decodable { var machineIdentifier: String? }
            var MediaContainer: Container
        }
        let request = HTTPRequest(method: "GET", url: url, headers: [("Accept", "application/json")], timeout: probeTimeout)
        guard let response = try? await env.network.httpTransport.send(request), response.status == 200,
              let identity = try? JSONCoding.decode(Identity.self, from: response.body) else { return false }
        return identity.MediaContainer.machineIdentifier == machineIdentifier
    }

    /// The server to use: the chosen one, or the account's only server (chosen then).
    /// - Throws: ``LibraryError/noServers``, ``LibraryError/chooseServer(_:)``, and what ``list()`` throws.
    func current() async throws -> PlexServerChoice {
        if let chosen = self.chosen { return chosen.working != nil ? chosen : try await connect(chosen) }
        let servers = try await list()
        switch servers.count {
        case 0: throw LibraryError.noServers
        case 1: return try await connect(try Self.choice(servers[0]))
        default: throw LibraryError.chooseServer(servers.map(\.name))
        }
    }

    /// A client for the media server, with its own token and the address that answered;
    /// `nil` when the profile has no Plex sign-in (the library then uses `server.plex`).
    /// - Parameter reprobe: probe the addresses again first (the last one stopped answering).
    public func mediaClient(clientIdentifier: String, reprobe: Bool = false) async throws -> APIClient? {
        guard let session else { return nil }
        if env.isOffline { throw NetworkError.offlineMode }
        if isDirect { return client(base: try directServer(), token: session.accessToken, clientIdentifier: clientIdentifier) }
        var choice = try await current()
        if reprobe { choice = try await connect(choice) }
        guard let working = choice.working, let base = URL(string: working) else { return nil }
        // The remembered address is not retried when it stops answering: the server's other
        // addresses are probed instead (see ReconnectingPlexAPI). Once just probed, it is.
        return client(base: base, token: choice.accessToken, clientIdentifier: clientIdentifier,
                      policy: RetryPolicy(retriesConnectionFailures: reprobe))
    }

    /// A client for one media server address with that server's own token.
    func client(base: URL, token: String, clientIdentifier: String, policy: RetryPolicy = .standard) -> APIClient {
        var client = APIClient(service: .plex, baseURL: base, transport: env.network.httpTransport,
                               authenticator: FixedToken(token: token, profile: env.profile.name.rawValue),
                               authScheme: PlexRESTClient.authScheme, retrier: Retrier(policy: policy), logger: env.logger,
                               profile: env.profile.name.rawValue)
        client.defaultHeaders = PlexRESTClient.identificationHeaders(clientIdentifier: clientIdentifier)
        return client
    }
}

/// A Plex token: it does not expire and cannot be renewed, so a 401 means "sign in again".
struct FixedToken: Authenticating {
    let token: String
    let profile: String
    func accessToken() async throws -> String { token }
    func renewToken(replacing rejected: String) async throws -> String {
        throw AuthError.sessionExpired(profile: profile, service: Service.plex.rawValue)
    }
    func sessionExpired(profile: String) -> any Error { AuthError.sessionExpired(profile: profile, service: Service.plex.rawValue) }
}

/// A ``PlexAPI`` that probes the server's addresses again once when the one in use stops
/// answering, repeats the request at the address that answered, and uses that one from then on.
final class ReconnectingPlexAPI: PlexAPI, Sendable {
    let current: PlexRESTClient
    let reconnect: @Sendable () async throws -> PlexRESTClient
    let reconnection = Reconnection()

    init(current: PlexRESTClient, reconnect: @escaping @Sendable () async throws -> PlexRESTClient) {
        self.current = current
        self.reconnect = reconnect
    }

    /// One re-probe per process, shared by the requests that failed together (a prefetch
    /// runs four at once); its client serves every request after it.
    actor Reconnection {
        private var task: Task<PlexRESTClient, any Error>?
        private(set) var client: PlexRESTClient?

        func client(_ make: @escaping @Sendable () async throws -> PlexRESTClient) async throws -> PlexRESTClient {
            let task = self.task ?? Task { try await make() }
            self.task = task
            let client = try await task.value
            self.client = client
            return client
        }
    }

    func again<T>(_ body: (PlexRESTClient) async throws -> T) async throws -> T {
        if let fresh = await reconnection.client { return try await body(fresh) }
        do { return try await body(current) } catch let error as NetworkError {
            guard error.isConnectionFailure || { if case .operationTimedOut = error { true } else { false } }() else { throw error }
            return try await body(try await reconnection.client(reconnect))
        }
    }

    func sections() async throws -> [PlexSection] { try await again { try await $0.sections() } }
    func albums(section: String, progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> [Album] {
        try await again { try await $0.albums(section: section, progress: progress) }
    }
    func albums(section: String, updatedAfter time: Int?, progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> AlbumChanges {
        try await again { try await $0.albums(section: section, updatedAfter: time, progress: progress) }
    }
    func albumCount(section: String, addedIn range: KeyRange<Int>) async throws -> Int {
        try await again { try await $0.albumCount(section: section, addedIn: range) }
    }
    func albums(section: String, addedIn range: KeyRange<Int>) async throws -> [Album] {
        try await again { try await $0.albums(section: section, addedIn: range) }
    }
    func collections(section: String) async throws -> [PlexCollection] { try await again { try await $0.collections(section: section) } }
    func collectionAlbums(_ ratingKey: String) async throws -> [Album] { try await again { try await $0.collectionAlbums(ratingKey) } }
    func album(_ ratingKey: String) async throws -> AlbumDetail { try await again { try await $0.album(ratingKey) } }
    func artwork(path: String, size: Int) async throws -> Data { try await again { try await $0.artwork(path: path, size: size) } }
    func notificationSocket() async throws -> (url: URL, headers: [(name: String, value: String)])? {
        try await (reconnection.client ?? current).notificationSocket()
    }
}
