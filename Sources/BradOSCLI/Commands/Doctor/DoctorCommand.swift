import ArgumentParser
import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

/// `brados doctor`: checks the set-up and says what to fix.
public struct DoctorCommand: EnvironmentCommand {
    public static let profileAccess: ProfileLock.Access? = nil
    public static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the configuration, servers, sign-in, cache folders and libarchive; say what to fix.",
        discussion: "Exits 1 when a check fails (warnings do not count). Uses the network unless --offline.\nExamples:\n  brados doctor\n  brados --offline doctor\n  brados doctor --json")

    @OptionGroup public var global: GlobalOptions
    public init() {}

    /// Runs every check and prints them.
    /// - Throws: `ExitCode` of ``FailureKind/general`` (1) when a check fails; ``ConfigError`` for an unreadable config file or invalid profile name;
    ///   ``StorageError/coding(path:detail:)``.
    public func run(in env: AppEnvironment) async throws {
        let checks = await Doctor(env).run()
        try DoctorRenderer(output: env.output).render(checks)
        if checks.contains(where: { $0.status == .fail }) { throw ExitCode(ExitStatus.code(for: .general)) }
    }
}

