import BradOSAuth
import BradOSErrors
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Logging
import Synchronization

/// Everything a command needs, built once per invocation and injected everywhere:
/// streams, settings, the profile's folders, logging, time, and network access.
/// Tests build it with their own IO, transport, clock and directories.
public struct AppEnvironment: Sendable {
    public let io: any TerminalIO
    public let output: Output
    public let settings: Settings
    public let paths: Paths
    public let profile: ProfileScope
    public let logger: Logger
    public let plugins: [any DomainPlugin]
    /// The feature modules (``Feature``) the core tells of what it does.
    public let features: [any Feature]
    /// The names brados runs itself (its commands), which an external `brados-NAME` cannot take.
    public var builtInCommands: Set<String> { builtIns() }
    private let builtIns: @Sendable () -> Set<String>
    /// Wall-clock time (TTLs, ages).
    public let now: @Sendable () -> Date
    /// The clock retries sleep on.
    public let clock: any Clock<Duration>
    public let network: NetworkAccess
    /// `credentials.store`: where new secrets go.
    public let credentialStoreChoice: CredentialStoreChoice
    /// A profile's ``CredentialStore``: this environment's keyring and `credentials.store`.
    private let makeCredentials: @Sendable (ProfileName) -> CredentialStore
    /// `refresh.wait`, read on first use and kept (a value the rule refuses said once).
    let refreshWait: @Sendable () -> Duration
    /// This environment built again from what it was built with (``reloaded(retryNotices:)``).
    private let rebuild: @Sendable (_ retryNotices: Bool) throws -> AppEnvironment
    /// Whether a request waiting to be retried says so on stderr (see ``NetworkAccess``).
    public let retryNotices: Bool

    /// Builds the environment.
    /// - Throws: ``ConfigError`` for an unreadable config file or invalid profile name.
    public init(
        io: any TerminalIO, flags: GlobalFlags, plugins: [any DomainPlugin], features: [any Feature] = [], embedded: (any EmbeddedBackend)?,
        transport: (any HTTPTransport)? = nil, keyring: any Keyring = NoKeyring(), clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() }, random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        builtInCommands: @escaping @Sendable () -> Set<String> = { [] }, retryNotices: Bool = true
    ) throws {
        self.retryNotices = retryNotices
        rebuild = { retryNotices in
            try AppEnvironment(io: io, flags: flags, plugins: plugins, features: features, embedded: embedded, transport: transport, keyring: keyring,
                               clock: clock, now: now, random: random, builtInCommands: builtInCommands, retryNotices: retryNotices)
        }
        let services = ServiceDescription.all(plugins)
        let (environment, renamedVariables) = ServiceRename.environment(io.environment, services: services)
        let paths = Paths.resolve(environment: environment)
        if let problem = paths.homeProblem { throw ConfigError.noHome(problem) }
        var file = try ConfigFile.load(from: paths.configFile)
        // What a user kept under a service's former name moves to its current name before anything reads it.
        let moved = try ServiceRename.migrate(paths, services: services, config: file)
        if !moved.isEmpty { file = try ConfigFile.load(from: paths.configFile) }
        let settings = Settings(flags: flags, environment: environment, file: file, plugins: plugins, features: features)
        // Nothing drawn and redrawn on stderr with display.progress off or in the accessible mode.
        let io: any TerminalIO = settings.drawsProgress ? io : FilteredIO(io, progress: false)
        let level = settings.logLevel
        let format = settings.logFormat
        let logger = Logger(label: "brados") { _ in TerminalLogHandler(io: io, level: level, format: format) }
        let profile = paths.profile(try settings.profile())
        self.io = io
        let (forms, formProblems) = settings.displayForms()
        output = Output(io: io, format: flags.json ? .json : .human, forms: forms)
        self.settings = settings
        self.paths = paths
        self.profile = profile
        self.logger = logger
        self.plugins = plugins
        self.features = features
        builtIns = builtInCommands
        self.now = now
        self.clock = clock
        let choice: CredentialStoreChoice
        do { choice = try settings.credentialStore() } catch {
            choice = .auto
            output.notice("\((error as? any BradOSError)?.summary ?? "\(error)") Using auto.")
        }
        credentialStoreChoice = choice
        // `auto`'s fallback to a file is said once per command, whichever store says it.
        let said = Mutex(false)
        let notifyOnce: @Sendable (String) -> Void = { [output] notice in
            if said.withLock({ said in defer { said = true }; return !said }) { output.notice(notice) }
        }
        let makeCredentials: @Sendable (ProfileName) -> CredentialStore = { [paths, logger] profile in
            CredentialStore(paths: paths, profile: profile, choice: choice, keyring: keyring, notify: notifyOnce, logger: logger)
        }
        self.makeCredentials = makeCredentials
        let wait = Mutex<Duration?>(nil)
        refreshWait = { [settings, output] in
            wait.withLock { kept in
                if let kept { return kept }
                var value = Duration.zero
                do { value = try Settings.refreshWaitSetting.value(in: settings) } catch {
                    output.notice(error.summaryText + " Reads do not wait for the server.")
                }
                kept = value
                return value
            }
        }
        network = NetworkAccess(
            settings: settings, paths: paths, profile: profile.name,
            transport: settings.isOffline
                ? OfflineTransport()
                : TimeoutTransport(base: transport ?? AsyncHTTPTransport(), timeout: (try? settings.networkTimeout()) ?? .seconds(30)),
            embedded: embedded, retrier: Retrier(clock: clock, random: random), output: output, logger: logger, now: now,
            credentials: makeCredentials(profile.name),
            accounts: services.reduce(into: [:]) { accounts, described in
                if let account = described.account { accounts[described.service] = account(settings, now) }
            }, retryNotices: retryNotices)
        for notice in moved + renamedVariables + formProblems { output.notice(notice) }
    }

    /// The environment of a command run from the `brados` executable, holding the profile's
    /// lock (``ProfileLock``) for the rest of the process.
    /// - Parameter access: `.shared` for commands that read or write the profile,
    ///   `.exclusive` for those that replace or erase it (import, clear, sign-out), `nil` for
    ///   those that never touch it (config, plugins, doctor), so they run even while it is held.
    /// - Parameter startsProfile: whether the command may start a profile that has nothing yet
    ///   (``EnvironmentCommand/startsProfile``); otherwise one named by `--profile` or
    ///   `BRADOS_PROFILE` must exist (``checkProfileExists()``).
    /// - Throws: ``ConfigError`` (``ConfigError/unknownProfile(_:known:)``); ``StorageError/profileBusy(profile:holder:)`` after
    ///   `profile.lock-timeout`.
    /// - Parameter waitForever: wait for another holder of the profile as long as it takes (`--wait`).
    public static func live(_ global: GlobalOptions, access: ProfileLock.Access? = .shared, startsProfile: Bool = true,
                            waitForever: Bool = false) async throws -> AppEnvironment {
        let io: any TerminalIO = global.quiet ? FilteredIO(StandardIO(), quiet: true) : StandardIO()
        let composition = Composition.current
        let env = try AppEnvironment(io: io, flags: global.flags, plugins: composition.plugins, features: composition.features,
                                     embedded: composition.embedded, keyring: SecretServiceKeyring(environment: io.environment),
                                     builtInCommands: { composition.builtInCommands })
        if !startsProfile { try env.checkProfileExists() }
        if let access { try await env.lock(env.profile.name, access, waitForever: waitForever) }
        // What a killed run left (a `cache import` killed mid-swap) is put right before anything reads the caches.
        for feature in env.features {
            if let notice = feature.recover(env.paths) { env.output.notice(notice) }
        }
        LogBootstrap.installOnce(io: env.io, level: env.settings.logLevel, format: env.settings.logFormat)
        return env
    }

    /// Tells every feature that a command on the profile ended (``Feature/commandEnded(_:)``).
    public func commandEnded() {
        for feature in features { feature.commandEnded(self) }
    }

    /// The environment built again as it was, from the config file, the environment variables
    /// and the sign-ins as they are now: how a long-running `sync --watch` takes a changed
    /// configuration. The profile's lock is the process's and stays as it is.
    /// - Parameter retryNotices: whether requests waiting to be retried say so (the current value by default).
    /// - Throws: ``ConfigError`` for a config file that no longer reads, or an invalid profile name.
    public func reloaded(retryNotices: Bool? = nil) throws -> AppEnvironment { try rebuild(retryNotices ?? self.retryNotices) }

    /// Refuses a profile named by `--profile` or `BRADOS_PROFILE` that has nothing (no
    /// sign-in, no cache, no data): a mistyped name is an error with the nearest one
    /// suggested, never a new empty profile. The active profile of the config file stands as it is.
    /// - Throws: ``ConfigError/unknownProfile(_:known:)``.
    public func checkProfileExists() throws {
        let named = settings.resolve("profile").source
        guard named == .flag || named == .environment, !paths.hasProfile(profile.name) else { return }
        throw ConfigError.unknownProfile(profile.name.rawValue, known: paths.knownProfiles().map(\.rawValue))
    }

    /// Holds `profile`'s lock for the rest of the process, waiting up to `profile.lock-timeout`
    /// (a terminal shows who it waits for).
    /// - Throws: ``StorageError/profileBusy(profile:holder:)``, ``ConfigError`` for a bad timeout.
    /// - Parameter waitForever: as long as it takes (`--wait`), not `profile.lock-timeout`.
    public func lock(_ profile: ProfileName, _ access: ProfileLock.Access, waitForever: Bool = false) async throws {
        let timeout = waitForever ? Duration.seconds(100 * 365 * 86_400) : try Settings.profileLockTimeoutSetting.value(in: settings)
        try await ProfileLock.hold(access, profile: profile, paths: paths, timeout: timeout, clock: clock, io: io)
    }

    /// Sends the rest of the command's stdout through the user's pager, from its first byte,
    /// when stdout is a terminal and `--no-pager` was not given (``Pager``). For commands
    /// whose output may run past a screen.
    /// - Returns: whether stdout will go through a pager (so progress drawn on the terminal
    ///   after the output would be drawn over it).
    @discardableResult
    public func pageOutput() -> Bool {
        guard !settings.flags.noPager else { return false }
        // A pager needs a terminal that moves its cursor, and a screen reader reads past a
        // screen by itself: none under TERM=dumb or in the accessible mode, unless BRADOS_PAGER asks.
        if io.environment["BRADOS_PAGER"] == nil, io.environment["TERM"] == "dumb" || output.forms.accessible { return false }
        return io.pageOutput()
    }

    /// Whether the network must not be used (`--offline`, `BRADOS_OFFLINE=1`, or config).
    public var isOffline: Bool { settings.isOffline }

    /// The profile's key-value store.
    public var defaults: KeyValueStore { KeyValueStore(url: profile.defaultsFile, logger: logger) }

    /// The profile's credentials.
    public var credentials: CredentialStore { credentials(of: profile.name) }

    /// A profile's credentials, in this environment's keyring and with its `credentials.store`.
    public func credentials(of profile: ProfileName) -> CredentialStore { makeCredentials(profile) }

    /// A client for a service, signed in as the profile.
    /// - Throws: ``NetworkError/offlineMode`` when offline (before any socket exists).
    /// - Throws: ``ConfigError`` for an invalid `network.timeout` (checked here, not at start-up,
    ///   so `config set`/`unset` and `doctor` still work to fix it).
    public func client(for service: Service, authScheme: AuthScheme = .bearer) async throws -> APIClient {
        _ = try settings.networkTimeout()
        return try await network.client(for: service, authScheme: authScheme)
    }

    /// The services of this environment's plugins (the account service first).
    public var services: [ServiceDescription] { ServiceDescription.all(plugins) }

    /// The plugin named `name`.
    /// - Throws: ``ConfigError/unknownDomain(_:known:)``.
    public func plugin(named name: String) throws -> any DomainPlugin {
        guard let plugin = plugins.first(where: { $0.name == name }) else {
            throw ConfigError.unknownDomain(name, known: plugins.map(\.name))
        }
        return plugin
    }
}
