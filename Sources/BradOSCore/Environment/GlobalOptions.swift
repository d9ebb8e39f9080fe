import ArgumentParser
import BradOSAuth
import BradOSStorage
import BradOSTerminal
import Foundation

/// Flags every command accepts. Each has an environment variable and a config key
/// (see `brados config list`); the flag wins over both.
public struct GlobalOptions: ParsableArguments, Sendable {
    @Option(name: .long, help: ArgumentHelp("Use this profile (env BRADOS_PROFILE; default: the active one).", valueName: "name"),
            completion: .custom { _, _, _ in CompletionValues.profiles() })
    public var profile: String?

    @Option(name: .long, help: ArgumentHelp("Use this server URL for every service (env BRADOS_SERVER).", valueName: "url"))
    public var server: String?

    @Flag(name: .long, help: "Never use the network; serve only from caches (env BRADOS_OFFLINE=1).")
    public var offline = false

    @Flag(name: .long, help: "Print machine-readable JSON on stdout.")
    public var json = false

    @Flag(name: [.short, .long], help: "Log cache and network events to stderr (env BRADOS_LOG=debug).")
    public var verbose = false

    @Flag(name: [.short, .long], help: "No notices or progress on stderr; errors still print.")
    public var quiet = false

    @Flag(name: .customLong("no-pager"), help: "Print long output straight to the terminal, not through the pager (env BRADOS_PAGER, PAGER; default less -FRX).")
    public var noPager = false

    @Option(name: .customLong("credentials-store"),
            help: ArgumentHelp("Where secrets go: auto, keyring or file (env BRADOS_CREDENTIALS_STORE; default auto).", valueName: "store"),
            completion: .list(CredentialStoreChoice.allCases.map(\.rawValue)))
    public var credentialsStore: String?

    @Option(name: .customLong("log-format"),
            help: ArgumentHelp("How log lines look: text or json, one object a line (env BRADOS_LOG_FORMAT; default text).", valueName: "format"),
            completion: .list(LogFormat.allCases.map(\.rawValue)))
    public var logFormat: String?

    public init() {}

    /// Checks `--quiet` against `--verbose`, the `--profile` name and the `--server` URL.
    /// - Throws: `ValidationError` for flags that do not go together, an invalid profile name or server URL.
    public mutating func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot go together.") }
        if let profile, ProfileName(rawValue: profile) == nil {
            throw ValidationError("Invalid profile name '\(profile)': use letters, digits, '.', '_' or '-'.")
        }
        if let credentialsStore, CredentialStoreChoice(rawValue: credentialsStore) == nil {
            throw ValidationError("Invalid --credentials-store '\(credentialsStore)': expected auto, keyring or file.")
        }
        if let logFormat, LogFormat(rawValue: logFormat) == nil {
            throw ValidationError("Invalid --log-format '\(logFormat)': expected text or json.")
        }
        if let server, let problem = ConfigKey.urlValidator(server) {
            throw ValidationError("Invalid --server '\(server)': expected \(problem).")
        }
    }

    /// The flags as plain values.
    public var flags: GlobalFlags {
        GlobalFlags(profile: profile, server: server, offline: offline, verbose: verbose, json: json, quiet: quiet, noPager: noPager,
                    credentialsStore: credentialsStore, logFormat: logFormat)
    }
}

extension GlobalOptions {
    static let valueOptions: Set<String> = ["--profile", "--server", "--credentials-store", "--log-format"]
    static let flagOptions: Set<String> = ["--offline", "--json", "--verbose", "-v", "--quiet", "-q", "--no-pager"]

    /// Moves global options written before the subcommand (`brados --offline mealplan show`)
    /// to the end, where the leaf command's ``GlobalOptions`` parses them. Anything else is
    /// left untouched, so `brados --help` and `brados --version` behave as usual.
    public static func hoistLeadingGlobals(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if flagOptions.contains(argument) || (valueOptions.contains(name) && argument.contains("=")) {
                leading.append(argument)
                index += 1
            } else if valueOptions.contains(argument), index + 1 < arguments.count {
                leading += [argument, arguments[index + 1]]
                index += 2
            } else {
                break
            }
        }
        guard !leading.isEmpty, index < arguments.count, !arguments[index].hasPrefix("-") else { return arguments }
        let rest = Array(arguments[index...])
        // Keep a `--` terminator last: globals go before it.
        if let terminator = rest.firstIndex(of: "--") {
            return Array(rest[..<terminator]) + leading + Array(rest[terminator...])
        }
        return rest + leading
    }
}
