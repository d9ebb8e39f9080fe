import AgeEncryption
import BradOSCore
import BradOSErrors

/// The age module's errors, said as brados says errors. A wrong key or passphrase has its
/// own exit code (12); a changed or damaged file is an integrity failure (8) like any other
/// damaged archive.
extension AgeError: BradOSError {
    public var summary: String {
        switch self {
        case let .noIdentityMatched(kinds) where kinds == ["scrypt"]: "The passphrase does not open this encrypted archive."
        case let .noIdentityMatched(kinds): "No key given opens this encrypted archive (it is encrypted to \(Self.describe(kinds)))."
        case let .noUsableIdentity(kinds) where kinds == ["scrypt"]: "This archive is encrypted with a passphrase, and none was given."
        case let .noUsableIdentity(kinds): "This archive is encrypted to \(Self.describe(kinds)), and no key was given."
        case .invalidKey, .invalidUse: "\(description.prefix(1).uppercased())\(description.dropFirst())."
        default: "The encrypted archive cannot be opened: \(description)."
        }
    }

    public var recovery: String? {
        switch self {
        case let .noIdentityMatched(kinds) where kinds == ["scrypt"]:
            "Nothing was imported. Try again with the passphrase it was exported with (--passphrase-stdin, or typed on a terminal); if it is right, the file's header was damaged: use another copy."
        case let .noUsableIdentity(kinds) where kinds == ["scrypt"]:
            "Pass it with --passphrase-stdin, or run the command on a terminal to be asked."
        case .noIdentityMatched, .noUsableIdentity:
            "Nothing was imported. Pass the identity it was encrypted to with --identity FILE (an age identity file: AGE-SECRET-KEY-1… lines, or AGE-SECRET-KEY-PQ-1… for a post-quantum key), or use the profile whose key it is (--profile NAME; `brados keys show` prints a profile's recipient). If the key is right, the file's header was damaged: use another copy."
        case .workFactorTooHigh:
            "Nothing was imported: opening it would take minutes. Open only files whose sender you trust, with `age -d` directly."
        case .invalidKey, .invalidUse: nil
        default:
            "Nothing was imported: the file was changed, damaged or cut short after it was written. Use another copy of the archive."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .noIdentityMatched, .noUsableIdentity: .decryption
        case .invalidKey, .invalidUse: .usage
        default: .integrity
        }
    }

    static func describe(_ kinds: [String]) -> String {
        kinds.map { kind in
            switch kind {
            case X25519Recipient.stanzaType: "an age key (X25519)"
            case HybridRecipient.stanzaType: "a post-quantum age key (mlkem768x25519)"
            case "scrypt": "a passphrase"
            default: "'\(kind)'"
            }
        }.joined(separator: " and ")
    }
}
