/// Why an age file could not be written or opened.
///
/// The cases follow the failure classes of the age specification (c2sp.org/age) and its
/// test vectors: a malformed header, no identity matching any recipient stanza, a header
/// MAC that does not verify, a payload that does not decrypt to its end, and a malformed
/// armor. Reading or writing the underlying stream fails with the stream's own error,
/// passed through unchanged.
public enum AgeError: Error, Equatable, Sendable {
    /// The header could not be parsed, or a recipient stanza is malformed (`detail` says how).
    case malformedHeader(String)
    /// The first line names a format version other than `age-encryption.org/v1`.
    case unsupportedVersion(String)
    /// The input does not start like an age file at all.
    case notAgeFile
    /// None of the identities given opens any recipient stanza: the wrong key or passphrase.
    /// `kinds` are the header's recipient types (`X25519`, `scrypt`, …).
    case noIdentityMatched(kinds: [String])
    /// The file is for a passphrase (scrypt) and no passphrase was given, or the other way
    /// round; `kinds` are the header's recipient types.
    case noUsableIdentity(kinds: [String])
    /// An scrypt stanza's work factor is above the limit (a denial-of-service guard).
    case workFactorTooHigh(Int, limit: Int)
    /// A file key was unwrapped but the header's MAC does not verify: the header was changed.
    case headerMACMismatch
    /// The payload does not decrypt to its end: `chunk` is the 0-based chunk that failed.
    case payloadDamaged(chunk: UInt64, reason: PayloadFailure)
    /// The ASCII armor is malformed.
    case malformedArmor(String)
    /// A key or recipient string is not valid.
    case invalidKey(String)
    /// Writing after `finish()`, or a recipient set age does not allow (scrypt with others).
    case invalidUse(String)

    public enum PayloadFailure: String, Sendable, Equatable {
        /// A chunk's authentication tag does not verify: the data was changed.
        case authentication
        /// The file ends before the final chunk.
        case truncated
        /// A final chunk is empty though data came before it.
        case emptyFinalChunk
        /// Data follows the final chunk.
        case trailingData
    }

    /// The age test vectors' failure class: `header failure`, `no match`, `HMAC failure`,
    /// `payload failure` or `armor failure`.
    public var failureClass: String {
        switch self {
        case .malformedHeader, .unsupportedVersion, .notAgeFile, .workFactorTooHigh, .invalidKey, .invalidUse: "header failure"
        case .noIdentityMatched, .noUsableIdentity: "no match"
        case .headerMACMismatch: "HMAC failure"
        case .payloadDamaged: "payload failure"
        case .malformedArmor: "armor failure"
        }
    }
}

extension AgeError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .malformedHeader(detail): "the age header is malformed: \(detail)"
        case let .unsupportedVersion(line): "the age format version '\(line)' is not supported (only age-encryption.org/v1)"
        case .notAgeFile: "this is not an age-encrypted file"
        case let .noIdentityMatched(kinds): "no key given opens it (it is encrypted to \(kinds.joined(separator: ", ")))"
        case let .noUsableIdentity(kinds): "it is encrypted to \(kinds.joined(separator: ", ")), and no such key or passphrase was given"
        case let .workFactorTooHigh(factor, limit): "its scrypt work factor \(factor) is above \(limit)"
        case .headerMACMismatch: "the age header's MAC does not match: the header was changed"
        case let .payloadDamaged(chunk, reason):
            switch reason {
            case .authentication: "encrypted chunk \(chunk) does not authenticate: the data was changed"
            case .truncated: "the encrypted data ends early (in chunk \(chunk)): the file is truncated"
            case .emptyFinalChunk: "the encrypted data ends with an empty chunk \(chunk)"
            case .trailingData: "data follows the end of the encrypted stream (after chunk \(chunk))"
            }
        case let .malformedArmor(detail): "the age armor is malformed: \(detail)"
        case let .invalidKey(detail): detail
        case let .invalidUse(detail): detail
        }
    }
}
