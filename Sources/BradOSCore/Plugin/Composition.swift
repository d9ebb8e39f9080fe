import BradOSAuth
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

/// What one `brados` command line runs with: its domain plugins, its features, the embedded backend and the
/// names the executable runs itself.
///
/// The composition root (`BradosMain.run`) builds one and binds it with ``bind(_:)`` around
/// parsing and running the command; everything under it (help texts, completions,
/// ``AppEnvironment/live(_:access:)``) reads ``current``. It is a task-local value, not a
/// process global: two bindings on two tasks (two tests, each with its own plugins) never see
/// each other's, and outside any binding ``current`` is ``empty``.
public struct Composition: Sendable {
    /// The domain plugins, in registry order.
    public let plugins: [any DomainPlugin]
    /// The feature modules (archives, search, pictures) the core calls at its hook points.
    public let features: [any Feature]
    /// The backend started when no server is configured; `nil` means a server must be.
    public let embedded: (any EmbeddedBackend)?
    /// Whether the command line may show a help text (`-h`, `--help`, `help`, a help dump):
    /// help texts that ask every plugin for a capability are made only then (``helpText(_:_:)``).
    public let mayShowHelp: Bool
    private let builtIns: @Sendable () -> Set<String>
    private let memo = HelpMemo()

    /// - Parameter builtInCommands: the names `brados` runs itself, computed each time they are asked for
    ///   (they come from the command tree, whose help reads this composition's plugins).
    public init(plugins: [any DomainPlugin], features: [any Feature] = [], embedded: (any EmbeddedBackend)? = nil,
                builtInCommands: @escaping @Sendable () -> Set<String> = { [] }, mayShowHelp: Bool = true) {
        self.plugins = plugins
        self.features = features
        self.embedded = embedded
        builtIns = builtInCommands
        self.mayShowHelp = mayShowHelp
    }

    /// No plugins, no embedded backend: what code sees outside any binding.
    public static let empty = Composition(plugins: [])

    /// The composition bound to the running task (or thread, before any task exists).
    @TaskLocal public static var current: Composition = .empty

    /// The names `brados NAME` runs itself (external plugins of those names never run).
    public var builtInCommands: Set<String> { builtIns() }

    /// A help text made from what the plugins adopt (`sync`'s domains and flags, `search`'s,
    /// `cache import`'s): made only when the command line may show help, once per
    /// composition. ArgumentParser reads every command's configuration while it parses any
    /// command line (`sync`'s 105 times for `brados exit-codes`), and the first `as?` of a
    /// type to a capability scans the runtime's conformance records (12,800 in brados): 20 of
    /// them cost 2 ms of every start-up before (docs/ARCHITECTURE.md, "What start-up costs").
    public func helpText(_ key: String, _ make: () -> String) -> String {
        guard mayShowHelp else { return "" }
        if let kept = memo.texts.withLock({ $0[key] }) { return kept }
        let made = make()
        memo.texts.withLock { $0[key] = made }
        return made
    }

    /// ``AccountServers``'s answer for these plugins, computed when asked (not at start-up).
    private var accountServers: @Sendable (String) -> Bool {
        { [plugins] name in ServiceDescription.all(plugins).contains { $0.service.rawValue == name && $0.signIn != nil } }
    }

    /// Runs `body` with this composition as ``current`` (and its services as ``AccountServers``).
    /// - Throws: what `body` throws.
    public func bind<T>(_ body: () throws -> T) rethrows -> T {
        try Self.$current.withValue(self) { try AccountServers.$lookup.withValue(accountServers, operation: body) }
    }

    /// Runs `body` with this composition as ``current``; for a detached task, which does not
    /// inherit the binding of the task that made it.
    /// - Throws: what `body` throws.
    public func bind<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await Self.$current.withValue(self) { try await AccountServers.$lookup.withValue(accountServers, operation: body) }
    }
}

/// ``Composition/helpText(_:_:)``'s texts, shared by the copies of one composition.
final class HelpMemo: Sendable {
    let texts = Mutex<[String: String]>([:])
}
