import Crypto
import _CryptoExtras
import Foundation

/// One recipient stanza of an age header: `-> TYPE ARG…` and its body.
public struct Stanza: Sendable, Equatable {
    public var type: String
    public var arguments: [String]
    public var body: [UInt8]

    public init(type: String, arguments: [String], body: [UInt8]) {
        self.type = type
        self.arguments = arguments
        self.body = body
    }
}

/// Something a file key is encrypted to: it wraps the file key into stanzas.
public protocol AgeRecipient: Sendable {
    func wrap(fileKey: [UInt8]) throws -> [Stanza]
    /// Whether this is a passphrase (scrypt) recipient, which age allows only alone.
    var isPassphrase: Bool { get }
    /// Whether this recipient resists a quantum computer; age never mixes the two kinds in
    /// one file (the classic one would be the weak link).
    var isPostQuantum: Bool { get }
}

/// Something that may open a file: it unwraps the file key from the header's stanzas.
public protocol AgeIdentity: Sendable {
    /// The file key, or `nil` when none of the stanzas is for this identity.
    /// - Throws: ``AgeError/malformedHeader(_:)`` for a stanza of its type that is malformed.
    func unwrap(_ stanzas: [Stanza]) throws -> [UInt8]?
}

extension AgeRecipient {
    public var isPassphrase: Bool { false }
    public var isPostQuantum: Bool { false }
}

enum AgeKDF {
    static let fileKeySize = 16
    static var zeroNonce: ChaChaPoly.Nonce { try! ChaChaPoly.Nonce(data: [UInt8](repeating: 0, count: 12)) }

    static func hkdf(_ secret: some ContiguousBytes, salt: [UInt8], info: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: salt, info: Array(info.utf8), outputByteCount: 32)
    }

    /// The 32-byte stanza body: the file key sealed under `key` with a zero nonce.
    static func seal(fileKey: [UInt8], key: SymmetricKey) throws -> [UInt8] {
        let box = try ChaChaPoly.seal(fileKey, using: key, nonce: zeroNonce)
        return Array(box.ciphertext) + Array(box.tag)
    }

    /// X25519 of `key` and a 32-byte `share`, or `nil` when the result is all zeros: the share
    /// is a point of small order, which age refuses wherever X25519 is used.
    static func sharedSecret(_ key: Curve25519.KeyAgreement.PrivateKey, _ share: [UInt8]) -> [UInt8]? {
        guard let point = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: share),
              let secret = try? key.sharedSecretFromKeyAgreement(with: point).withUnsafeBytes({ Array($0) }),
              secret.contains(where: { $0 != 0 })
        else { return nil }
        return secret
    }

    /// Whether a share is of small order: a clamped scalar is a multiple of 8, so any key gives
    /// all zeros for exactly those points.
    static func isLowOrder(_ share: [UInt8]) -> Bool { sharedSecret(Curve25519.KeyAgreement.PrivateKey(), share) == nil }

    /// The file key, or `nil` when the body does not authenticate under `key`.
    static func open(body: [UInt8], key: SymmetricKey) -> [UInt8]? {
        guard body.count == fileKeySize + 16,
              let box = try? ChaChaPoly.SealedBox(nonce: zeroNonce, ciphertext: body[0..<fileKeySize], tag: body[fileKeySize...]),
              let key = try? ChaChaPoly.open(box, using: key)
        else { return nil }
        return Array(key)
    }
}

// MARK: - X25519

/// An `age1…` public key.
public struct X25519Recipient: AgeRecipient, Hashable {
    /// The stanza's type, and the recipient type's name in messages.
    public static let stanzaType = "X25519"
    public let publicKey: [UInt8]

    /// Parses an `age1…` string (lowercase Bech32, as age writes it).
    public init(_ text: String) throws {
        guard text.hasPrefix("age1"), let (hrp, data) = Bech32.decode(text), hrp == "age", data.count == 32 else {
            throw AgeError.invalidKey("'\(text.prefix(80))' is not an age recipient (age1…, 62 characters)")
        }
        publicKey = data
    }

    init(publicKey: [UInt8]) { self.publicKey = publicKey }

    public var string: String { Bech32.encode(hrp: "age", data: publicKey) }

    public func wrap(fileKey: [UInt8]) throws -> [Stanza] {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let share = Array(ephemeral.publicKey.rawRepresentation)
        guard let secret = AgeKDF.sharedSecret(ephemeral, publicKey) else { throw AgeError.invalidKey("the recipient \(string) is a low-order point") }
        let key = AgeKDF.hkdf(secret, salt: share + publicKey, info: "age-encryption.org/v1/X25519")
        return [Stanza(type: Self.stanzaType, arguments: [Base64.encodeString(share)], body: try AgeKDF.seal(fileKey: fileKey, key: key))]
    }
}

/// An `AGE-SECRET-KEY-1…` private key.
public struct X25519Identity: AgeIdentity {
    /// The raw scalar (the swift-crypto key type is not Sendable).
    private let secret: [UInt8]
    private var privateKey: Curve25519.KeyAgreement.PrivateKey { try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: secret) }

    /// A new random key.
    public init() { secret = Array(Curve25519.KeyAgreement.PrivateKey().rawRepresentation) }

    /// Parses an `AGE-SECRET-KEY-1…` string (uppercase Bech32, as age writes it).
    public init(_ text: String) throws {
        guard text.hasPrefix("AGE-SECRET-KEY-1"), let (hrp, data) = Bech32.decode(text), hrp == "age-secret-key-", data.count == 32,
              (try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: data)) != nil
        else { throw AgeError.invalidKey("this is not an age identity (AGE-SECRET-KEY-1…)") }
        secret = data
    }

    public var string: String { Bech32.encode(hrp: "age-secret-key-", data: Array(privateKey.rawRepresentation)).uppercased() }
    public var recipient: X25519Recipient { X25519Recipient(publicKey: Array(privateKey.publicKey.rawRepresentation)) }

    public func unwrap(_ stanzas: [Stanza]) throws -> [UInt8]? {
        let privateKey = self.privateKey
        let ours = Array(privateKey.publicKey.rawRepresentation)
        for stanza in stanzas where stanza.type == X25519Recipient.stanzaType {
            guard stanza.arguments.count == 1 else { throw AgeError.malformedHeader("an X25519 stanza has \(stanza.arguments.count) arguments, not 1") }
            guard let share = Base64.decodeUnpadded(Array(stanza.arguments[0].utf8)), share.count == 32 else {
                throw AgeError.malformedHeader("an X25519 stanza's share is not 32 bytes of canonical base64")
            }
            guard stanza.body.count == AgeKDF.fileKeySize + 16 else { throw AgeError.malformedHeader("an X25519 stanza's body is \(stanza.body.count) bytes, not 32") }
            guard let secret = AgeKDF.sharedSecret(privateKey, share) else { throw AgeError.malformedHeader("an X25519 stanza's share is a low-order point") }
            let key = AgeKDF.hkdf(secret, salt: share + ours, info: "age-encryption.org/v1/X25519")
            if let fileKey = AgeKDF.open(body: stanza.body, key: key) { return fileKey }
        }
        return nil
    }
}

// MARK: - scrypt

/// A passphrase, as a recipient (encrypting) and as an identity (decrypting).
public struct ScryptPassphrase: AgeRecipient, AgeIdentity {
    /// age's default and this module's: 2^18 iterations (about 256 MiB of memory).
    public static let defaultWorkFactor = 18
    /// The highest work factor a file may ask for, as age does: beyond it, decrypting
    /// would take minutes (a denial of service).
    public static let maxWorkFactor = 22

    private let passphrase: [UInt8]
    public let workFactor: Int
    public let maxWorkFactor: Int

    public init(_ passphrase: String, workFactor: Int = defaultWorkFactor, maxWorkFactor: Int = maxWorkFactor) {
        self.passphrase = Array(passphrase.utf8)
        self.workFactor = workFactor
        self.maxWorkFactor = maxWorkFactor
    }

    public var isPassphrase: Bool { true }

    static let label = Array("age-encryption.org/v1/scrypt".utf8)

    static func key(_ passphrase: [UInt8], salt: [UInt8], workFactor: Int) throws -> SymmetricKey {
        try KDF.Scrypt.deriveKey(from: passphrase, salt: label + salt, outputByteCount: 32,
                                 rounds: 1 << workFactor, blockSize: 8, parallelism: 1)
    }

    public func wrap(fileKey: [UInt8]) throws -> [Stanza] {
        guard (1...30).contains(workFactor) else { throw AgeError.invalidUse("the scrypt work factor must be 1-30") }
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        let key = try Self.key(passphrase, salt: salt, workFactor: workFactor)
        return [Stanza(type: "scrypt", arguments: [Base64.encodeString(salt), String(workFactor)], body: try AgeKDF.seal(fileKey: fileKey, key: key))]
    }

    public func unwrap(_ stanzas: [Stanza]) throws -> [UInt8]? {
        for stanza in stanzas where stanza.type == "scrypt" {
            guard stanza.arguments.count == 2 else { throw AgeError.malformedHeader("an scrypt stanza has \(stanza.arguments.count) arguments, not 2") }
            guard let salt = Base64.decodeUnpadded(Array(stanza.arguments[0].utf8)), salt.count == 16 else {
                throw AgeError.malformedHeader("an scrypt stanza's salt is not 16 bytes of canonical base64")
            }
            let factor = try Self.workFactor(stanza.arguments[1])
            guard factor <= maxWorkFactor else { throw AgeError.workFactorTooHigh(factor, limit: maxWorkFactor) }
            guard stanza.body.count == AgeKDF.fileKeySize + 16 else { throw AgeError.malformedHeader("an scrypt stanza's body is \(stanza.body.count) bytes, not 32") }
            if let fileKey = AgeKDF.open(body: stanza.body, key: try Self.key(passphrase, salt: salt, workFactor: factor)) { return fileKey }
        }
        return nil
    }

    /// A decimal without sign or leading zero, 1 or more (what age writes).
    static func workFactor(_ text: String) throws -> Int {
        let digits = Array(text.utf8)
        guard let first = digits.first, first >= UInt8(ascii: "1"), first <= UInt8(ascii: "9"), digits.count <= 2,
              digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = Int(text)
        else { throw AgeError.malformedHeader("an scrypt stanza's work factor '\(text.prefix(20))' is not a decimal number") }
        return value
    }
}
