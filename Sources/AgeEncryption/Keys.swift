/// A native age identity: `AGE-SECRET-KEY-1…` (X25519) or `AGE-SECRET-KEY-PQ-1…`
/// (ML-KEM-768 + X25519), as age-keygen writes them.
public enum NativeIdentity: AgeIdentity {
    case x25519(X25519Identity)
    case hybrid(HybridIdentity)

    /// A new random key of either kind.
    public init(postQuantum: Bool) {
        self = postQuantum ? .hybrid(HybridIdentity()) : .x25519(X25519Identity())
    }

    /// Parses either kind of identity string.
    public init(_ text: String) throws {
        self = text.hasPrefix(HybridKEM.identityPrefix) ? .hybrid(try HybridIdentity(text)) : .x25519(try X25519Identity(text))
    }

    public var string: String {
        switch self {
        case let .x25519(key): key.string
        case let .hybrid(key): key.string
        }
    }

    public var recipient: NativeRecipient {
        switch self {
        case let .x25519(key): .x25519(key.recipient)
        case let .hybrid(key): .hybrid(key.recipient)
        }
    }

    public func unwrap(_ stanzas: [Stanza]) throws -> [UInt8]? {
        switch self {
        case let .x25519(key): try key.unwrap(stanzas)
        case let .hybrid(key): try key.unwrap(stanzas)
        }
    }
}

/// A native age recipient: `age1…` (X25519) or `age1pq1…` (ML-KEM-768 + X25519).
public enum NativeRecipient: AgeRecipient, Hashable {
    case x25519(X25519Recipient)
    case hybrid(HybridRecipient)

    /// Parses either kind of recipient string.
    public init(_ text: String) throws {
        self = text.hasPrefix(HybridKEM.recipientPrefix + "1") ? .hybrid(try HybridRecipient(text)) : .x25519(try X25519Recipient(text))
    }

    public var string: String {
        switch self {
        case let .x25519(key): key.string
        case let .hybrid(key): key.string
        }
    }

    /// The string as a person reads it in a message: a post-quantum key's 1,959 characters
    /// cut to their start and end.
    public var abbreviated: String { Self.abbreviate(string) }

    static func abbreviate(_ text: String) -> String {
        text.count <= 80 ? text : "\(text.prefix(24))…\(text.suffix(8))"
    }

    /// The recipient's kind as age names its stanza: `X25519` or `mlkem768x25519`.
    public var kind: String { isPostQuantum ? HybridKEM.stanzaType : X25519Recipient.stanzaType }

    public var isPostQuantum: Bool {
        if case .hybrid = self { return true }
        return false
    }

    public func wrap(fileKey: [UInt8]) throws -> [Stanza] {
        switch self {
        case let .x25519(key): try key.wrap(fileKey: fileKey)
        case let .hybrid(key): try key.wrap(fileKey: fileKey)
        }
    }
}

/// The line format age's identity and recipients files share: one key per line; blank lines
/// and `#` comments are skipped; at least one key.
enum AgeKeyLines {
    static func parse<Key>(_ text: String, what: String, example: String, _ make: (String) throws -> Key) throws -> [Key] {
        var keys: [Key] = []
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            do { keys.append(try make(line)) } catch {
                let known = line.hasPrefix("age1") || line.uppercased().hasPrefix("AGE-SECRET-KEY-")
                throw AgeError.invalidKey("line \(number + 1): " + (known ? "\(error)" : "not an age \(what) (\(example)); plugin and SSH keys are not supported"))
            }
        }
        guard !keys.isEmpty else { throw AgeError.invalidKey("it holds no \(what) (\(example) lines)") }
        return keys
    }
}

/// Reads an identity file: `AGE-SECRET-KEY-1…` and `AGE-SECRET-KEY-PQ-1…` lines; blank lines
/// and `#` comments are skipped.
public enum AgeIdentityFile {
    public static func parse(_ text: String) throws -> [NativeIdentity] {
        try AgeKeyLines.parse(text, what: "identity", example: "AGE-SECRET-KEY-1… or AGE-SECRET-KEY-PQ-1…", NativeIdentity.init)
    }
}

/// Reads a recipients file: `age1…` and `age1pq1…` lines; blank lines and `#` comments are skipped.
public enum AgeRecipientsFile {
    public static func parse(_ text: String) throws -> [NativeRecipient] {
        try AgeKeyLines.parse(text, what: "recipient", example: "age1… or age1pq1…", NativeRecipient.init)
    }
}
