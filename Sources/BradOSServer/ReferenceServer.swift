import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

/// The reference backend: every service brados speaks, over SQLite, with fault injection.
///
/// A library so that tests can drive it in-process and `brados` can embed it;
/// `brados-server` is a thin executable around it.
public struct ReferenceServer: Sendable {
    public let configuration: ServerConfiguration
    public let database: ServerDatabase
    public let admin: AdminState
    let catalogue: PlexCatalogue
    /// The music library the Plex routes serve, changed by `/_admin/plex`.
    let library: PlexLibrary
    /// Supabase Realtime's subscribers and the change pump.
    let realtime: RealtimeHub

    /// Opens the database and seeds the demo data each domain lacks.
    /// - Throws: database errors.
    public init(configuration: ServerConfiguration) throws {
        self.configuration = configuration
        database = try ServerDatabase(directory: configuration.dataDirectory)
        admin = AdminState()
        catalogue = PlexCatalogue(seed: configuration.seed, size: configuration.plexAlbums, addedPerSecond: configuration.plexAddedPerSecond)
        library = PlexLibrary(catalogue)
        realtime = RealtimeHub(database: database, anonKey: configuration.supabaseAnonKey)
        if configuration.seedDemo { try DemoSeed.seed(database, seed: configuration.seed, coachMessages: configuration.coachMessages,
                                                          coachConversations: configuration.coachConversations) }
    }

    /// The router with every route. Middlewares come first so they wrap every route.
    public func buildRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: StatsMiddleware(state: admin))
        router.add(middleware: FaultMiddleware(state: admin))
        router.get("/health") { _, _ in try JSON.response(["status": "ok"]) }
        let auth = AuthRoutes(database: database, tokenTTL: configuration.tokenTTL)
        auth.register(on: router)
        MealPlanRoutes(database: database, auth: auth, seed: configuration.seed).register(on: router)
        VisitRoutes(database: database, auth: auth).register(on: router)
        let (owned, shared, plexTV) = plex()
        plexTV.register(on: router, admin: configuration.admin)
        let ownedRoutes = plexRoutes(owned, plexTV)
        ownedRoutes.register(on: router)
        ownedRoutes.registerEventSource(on: router)
        ownedRoutes.register(on: router.group("relay"))
        plexRoutes(shared, plexTV).register(on: router.group("shared/alice"))
        let supabase = supabaseAuth()
        supabase.register(on: router)
        CoachRoutes(database: database, auth: supabase).register(on: router)
        NutritionRoutes(database: database, auth: auth,
                        generationLimit: RateLimiter(limit: configuration.planRateLimit, window: TimeInterval(configuration.planRateWindow),
                                                                     now: configuration.planRateClock))
            .register(on: router)
        if configuration.admin { AdminRoutes(state: admin, database: database, library: library, realtime: realtime).register(on: router) }
        return router
    }

    /// plex.tv and two Plex Media Servers on this port: demo's own (at the root, and at
    /// /relay as its relay connection) and one alice shares with demo (at /shared/alice).
    func plex() -> (owned: PlexServerIdentity, shared: PlexServerIdentity, plexTV: PlexTVRoutes) {
        let owned = PlexServerIdentity(name: "brados reference", machineIdentifier: catalogue.machineIdentifier, owner: "demo", sharedWith: [],
                                       prefix: "", hasLocalAndRelay: true, takesBradOSTokens: true)
        let shared = PlexServerIdentity(name: "Alice's Music", machineIdentifier: String(catalogue.machineIdentifier.reversed()), owner: "alice",
                                        sharedWith: ["demo"], prefix: "/shared/alice", hasLocalAndRelay: false, takesBradOSTokens: false)
        return (owned, shared, PlexTVRoutes(database: database, servers: [owned, shared], pinLifetime: configuration.plexPinLifetime))
    }

    func plexRoutes(_ server: PlexServerIdentity, _ plexTV: PlexTVRoutes) -> PlexRoutes {
        PlexRoutes(library: library, database: database, server: server, plexTV: plexTV, realAlbums: configuration.plexRealAlbums)
    }

    func supabaseAuth() -> SupabaseAuthRoutes {
        SupabaseAuthRoutes(database: database, tokenTTL: configuration.tokenTTL, anonKey: configuration.supabaseAnonKey)
    }

    /// The websocket routes (consulted for upgrade requests only): Supabase Realtime, Plex's notifications.
    public func buildWebSocketRouter() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        RealtimeRoutes(hub: realtime, auth: supabaseAuth()).register(on: router)
        let (owned, _, plexTV) = plex()
        plexRoutes(owned, plexTV).registerNotifications(on: router)
        return router
    }

    /// The application, calling `onRunning` with the bound port.
    public func makeApplication(logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: buildRouter(),
            server: .http1WebSocketUpgrade(webSocketRouter: buildWebSocketRouter(),
                                           configuration: .init(ws: .init(maxFrameSize: 1 << 20, autoPing: .disabled))),
            configuration: .init(address: configuration.unixSocket.map { .unixDomainSocket(path: $0) } ?? .hostname(configuration.host, port: configuration.port),
                                 serverName: "brados-server"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Starts the server in the background of this process on an ephemeral loopback port
    /// (the embedded default). It runs until the process exits.
    /// - Returns: the base URL.
    public static func startEmbedded(dataDirectory: URL, socket: String, password: String) async throws -> URL {
        var configuration = ServerConfiguration(port: 0, dataDirectory: dataDirectory)
        configuration.unixSocket = socket
        let server = try ReferenceServer(configuration: configuration)
        // No public demo password: every account of this profile's backend has the profile's secret.
        try server.database.setEveryPassword(password)
        unlink(socket)
        let quiet = Logger(label: "brados.embedded") { _ in SwiftLogNoOpLogHandler() }
        let port = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            let resumed = ResumeOnce(continuation)
            let app = server.makeApplication(logger: quiet) { port in resumed.resume(.success(port)) }
            Task.detached {
                do { try await app.run() } catch { resumed.resume(.failure(error)) }
            }
        }
        _ = port
        chmod(socket, 0o600)
        // ASCII letters and digits only (CharacterSet.alphanumerics would let non-ASCII letters
        // through unencoded, which a URL host cannot hold).
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return URL(string: "http+unix://" + (socket.addingPercentEncoding(withAllowedCharacters: allowed) ?? socket))!
    }
}

/// Resumes a continuation at most once.
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>
    init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = Mutex(continuation) }
    func resume(_ result: Result<T, any Error>) {
        continuation.withLock { pending in
            pending?.resume(with: result)
            pending = nil
        }
    }
}
