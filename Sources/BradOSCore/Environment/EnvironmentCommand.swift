import ArgumentParser
import BradOSStorage

/// A command whose work runs in an environment it is given: `run()` builds the process's
/// (``AppEnvironment/live(_:access:)``, which takes the profile's lock as ``profileAccess``
/// says) and calls ``run(in:)``; a test builds its own environment and calls ``run(in:)``.
public protocol EnvironmentCommand: AsyncParsableCommand {
    /// The global flags (`@OptionGroup var global: GlobalOptions`).
    var global: GlobalOptions { get }
    /// How the command holds the profile: `.shared` (the default) to read or write it,
    /// `.exclusive` to replace or erase it, `nil` when it never touches it.
    static var profileAccess: ProfileLock.Access? { get }
    /// Whether the command may start a profile that has nothing yet (a sign-in, an import, a
    /// key): false by default, so that `--profile` with a mistyped name is an error, not a new
    /// empty profile.
    static var startsProfile: Bool { get }
    /// Whether the command waits for another brados that holds the profile as long as that
    /// takes (`--wait`), instead of `profile.lock-timeout`: false by default.
    var waitsForProfile: Bool { get }
    /// The command's work, in `env`.
    func run(in env: AppEnvironment) async throws
}

extension EnvironmentCommand {
    public static var profileAccess: ProfileLock.Access? { .shared }
    public static var startsProfile: Bool { false }
    public var waitsForProfile: Bool { false }

    /// Runs in the environment of the `brados` process.
    /// - Throws: what ``run(in:)`` throws; ``ConfigError`` and ``StorageError`` building the environment.
    public func run() async throws { try await runInProcess() }

    /// What ``run()`` does by default (a command with its own `run()` wraps it): builds the
    /// process's environment, runs the command in it, and tells the features it ended.
    /// - Throws: what ``run(in:)`` throws; ``ConfigError`` and ``StorageError`` building the environment.
    public func runInProcess() async throws {
        let env = try await AppEnvironment.live(global, access: Self.profileAccess, startsProfile: Self.startsProfile || Self.profileAccess == nil,
                                                waitForever: waitsForProfile)
        do { try await run(in: env) } catch {
            if Self.profileAccess != nil, !(error is CancellationError), !Task.isCancelled { env.commandEnded() }
            throw error
        }
        if Self.profileAccess != nil, !Task.isCancelled { env.commandEnded() }
    }
}
