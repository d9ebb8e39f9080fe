import Foundation
import Synchronization

/// Starts the reference backend inside the `brados` process (the "embedded default").
/// The executable installs the implementation from `BradOSServer`; the core never links it.
public protocol EmbeddedBackend: Sendable {
    /// Starts the backend listening on the Unix socket `socket` (no TCP port), keeping its
    /// data in `dataDirectory`; every account of it gets `password` (see ``EmbeddedAccount``).
    /// - Returns: the base URL, `http+unix://…`.
    /// - Throws: the backend's own errors when it cannot start (its database, the socket); the command then fails.
    func start(dataDirectory: URL, socket: String, password: String) async throws -> URL
}

/// What the `brados` executable installs at start-up: the domain registry and the
/// embedded backend. Library code reads it through ``AppEnvironment``.
public enum Runtime {
    private struct State: Sendable {
        var plugins: [any DomainPlugin] = []
        var embedded: (any EmbeddedBackend)? = nil
        var builtInCommands: @Sendable () -> Set<String> = { [] }
    }
    private static let state = Mutex(State())

    /// Installs the registry. Call once, before parsing the command line.
    /// - Parameter builtInCommands: the names `brados` runs itself, computed when first asked
    ///   (they come from the command tree, whose help reads the plugins installed here).
    public static func install(plugins: [any DomainPlugin], embedded: (any EmbeddedBackend)?,
                               builtInCommands: @escaping @Sendable () -> Set<String> = { [] }) {
        state.withLock { $0 = State(plugins: plugins, embedded: embedded, builtInCommands: builtInCommands) }
    }

    /// The names `brados NAME` runs itself (external plugins of those names never run).
    public static var builtInCommands: Set<String> { state.withLock { $0.builtInCommands }() }

    /// The installed domain plugins, in registry order.
    public static var plugins: [any DomainPlugin] { state.withLock { $0.plugins } }
    /// The installed embedded backend, if any.
    public static var embedded: (any EmbeddedBackend)? { state.withLock { $0.embedded } }
}
