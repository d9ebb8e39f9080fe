/// Failures in configuration, profiles and paths.
public enum ConfigError: BradOSError {
    case unknownKey(String, known: [String])
    case invalidValue(key: String, value: String, expected: String)
    case invalidProfileName(String)
    case unreadableConfigFile(path: String, detail: String)

    public var summary: String {
        switch self {
        case let .unknownKey(key, _): "Unknown configuration key '\(key)'."
        case let .invalidValue(key, value, expected): "Invalid value '\(value)' for \(key): expected \(expected)."
        case let .invalidProfileName(name): "Invalid profile name '\(name)'."
        case let .unreadableConfigFile(path, detail): "The config file \(path) could not be read: \(detail)."
        }
    }

    public var recovery: String? {
        switch self {
        case let .unknownKey(_, known): "Known keys: \(known.joined(separator: ", ")). See `brados config list`."
        case .invalidValue: "See `brados config list` for each key's meaning and default."
        case .invalidProfileName:
            "Use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-'."
        case .unreadableConfigFile: "Fix or remove the file; `brados config path` shows where it is."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .unreadableConfigFile: .general
        default: .usage
        }
    }
}
