import BradOSErrors
import BradOSStorage
import BradOSTerminal
/// Failures in configuration, profiles and paths.
public enum ConfigError: BradOSError {
    case unknownKey(String, known: [String])
    case invalidValue(key: String, value: String, expected: String)
    case invalidProfileName(String)
    /// A domain name that no installed plugin has (`--domains`, `cache clear NAME`).
    case unknownDomain(String, known: [String])
    case unreadableConfigFile(path: String, detail: String)
    /// `--profile NAME` (or `BRADOS_PROFILE`) names a profile that has nothing: no sign-in, no
    /// cache, no data. `known` are the profiles there are.
    case unknownProfile(String, known: [String])
    /// No absolute home folder to keep files under (``Paths/homeProblem``).
    case noHome(String)

    public var summary: String {
        switch self {
        case let .unknownKey(key, known):
            "Unknown configuration key '\(key)'." + (Suggestion.nearest(key, among: known).map { " Did you mean '\($0)'?" } ?? "")
        case let .unknownProfile(name, known):
            "There is no profile '\(name)'." + (Suggestion.nearest(name, among: known).map { " Did you mean '\($0)'?" } ?? "")
        case let .invalidValue(key, value, expected): "Invalid value '\(value)' for \(key): expected \(expected)."
        case let .invalidProfileName(name): "Invalid profile name '\(name)'."
        case let .unknownDomain(name, _): "There is no domain '\(name)'."
        case let .unreadableConfigFile(path, detail): "The config file \(path) could not be read: \(detail)."
        case let .noHome(problem): "brados cannot tell where to keep your files: \(problem), and the account database names no home folder."
        }
    }

    public var recovery: String? {
        switch self {
        case .unknownKey: "`brados config list` shows every key with its value and meaning."
        case let .unknownProfile(name, known):
            "Profiles: \(known.joined(separator: ", ")). A profile starts with a sign-in: brados --profile \(name) auth login (or `brados cache import ARCHIVE --as \(name)`)."
        case let .invalidValue(key, _, _) where key.hasPrefix("BRADOS_"): "Fix or unset the environment variable \(key)."
        case let .invalidValue(key, _, _) where key.hasPrefix("--"): "Fix the \(key) value (see `brados --help`)."
        case let .invalidValue(key, _, _):
            "Set a valid value (`brados config set \(key) VALUE`) or go back to the default (`brados config unset \(key)`); `brados config list` shows each key's meaning and default."
        case let .unknownDomain(_, known): "Domains: \(known.joined(separator: ", ")) (`brados cache stats` lists them with what they store)."
        case .invalidProfileName:
            "Use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-'."
        case .unreadableConfigFile: "Fix or remove the file; `brados config path` shows where it is."
        case .noHome: "Set HOME to your home folder (export HOME=/home/you), or BRADOS_HOME to a folder for all of brados's files; never the current folder."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .unreadableConfigFile: .general
        default: .usage
        }
    }
}

extension ProfileName {
    /// A profile name as typed (a flag, a setting), or the error that says what is allowed.
    /// - Throws: ``ConfigError/invalidProfileName(_:)``.
    public init(validating name: String) throws {
        guard let value = ProfileName(rawValue: name) else { throw ConfigError.invalidProfileName(name) }
        self = value
    }
}
