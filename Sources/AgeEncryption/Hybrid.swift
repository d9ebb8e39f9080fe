import Crypto
import Foundation

/// age's post-quantum hybrid recipient type (age 1.3, c2sp.org/age): the file key sealed with
/// HPKE base mode, KEM MLKEM768-X25519 (X-Wing, 0x647a), HKDF-SHA256 and ChaCha20Poly1305.
/// Its stanza is `-> mlkem768x25519 <enc, 1120 bytes>` with the 32-byte sealed file key as body.
enum HybridKEM {
    static let stanzaType = "mlkem768x25519"
    static let info = Data("age-encryption.org/mlkem768x25519".utf8)
    static let encapsulationSize = 1120
    static let publicKeySize = 1216
    static let seedSize = 32
    static let recipientPrefix = "age1pq"
    static let identityPrefix = "AGE-SECRET-KEY-PQ-"
    static var suite: HPKE.Ciphersuite { HPKE.Ciphersuite(kem: .XWingMLKEM768X25519, kdf: .HKDF_SHA256, aead: .chaChaPoly) }

    /// Whether a 1216-byte public key can be encrypted to, as age 1.3 checks when it parses one:
    /// its ML-KEM-768 encapsulation key passes FIPS 203's modulus check (every 12-bit
    /// coefficient of its first 1152 bytes is below q = 3329), and its X25519 point (the last
    /// 32 bytes) is not of small order.
    static func isValidPublicKey(_ key: [UInt8]) -> Bool {
        guard key.count == publicKeySize else { return false }
        for index in stride(from: 0, to: 1152, by: 3) {
            let first = UInt16(key[index]) | UInt16(key[index + 1] & 0x0F) << 8
            let second = UInt16(key[index + 1] >> 4) | UInt16(key[index + 2]) << 4
            if first >= 3329 || second >= 3329 { return false }
        }
        return !AgeKDF.isLowOrder(Array(key.suffix(32)))
    }
}

/// An `age1pq1…` public key (1216 bytes: an ML-KEM-768 encapsulation key and an X25519 point).
public struct HybridRecipient: AgeRecipient, Hashable {
    /// The stanza's type, and the recipient type's name in messages.
    public static let stanzaType = HybridKEM.stanzaType
    public let publicKey: [UInt8]

    /// Parses an `age1pq1…` string (lowercase Bech32, as age writes it).
    public init(_ text: String) throws {
        guard text.hasPrefix(HybridKEM.recipientPrefix + "1"), let (hrp, data) = Bech32.decode(text), hrp == HybridKEM.recipientPrefix,
              data.count == HybridKEM.publicKeySize
        else { throw AgeError.invalidKey("'\(text.prefix(40))…' is not a post-quantum age recipient (age1pq1…, 1,959 characters)") }
        guard HybridKEM.isValidPublicKey(data) else {
            throw AgeError.invalidKey("'\(NativeRecipient.abbreviate(text))' is not a valid post-quantum key (its ML-KEM or X25519 part is malformed)")
        }
        publicKey = data
    }

    init(publicKey: [UInt8]) { self.publicKey = publicKey }

    public var string: String { Bech32.encode(hrp: HybridKEM.recipientPrefix, data: publicKey) }
    public var isPostQuantum: Bool { true }

    public func wrap(fileKey: [UInt8]) throws -> [Stanza] {
        do {
            let key = try XWingMLKEM768X25519.PublicKey(rawRepresentation: publicKey)
            var sender = try HPKE.Sender(recipientKey: key, ciphersuite: HybridKEM.suite, info: HybridKEM.info)
            let body = try sender.seal(fileKey, authenticating: Data())
            return [Stanza(type: HybridKEM.stanzaType, arguments: [Base64.encodeString(Array(sender.encapsulatedKey))], body: Array(body))]
        } catch {
            throw AgeError.invalidKey("the post-quantum recipient \(NativeRecipient.abbreviate(string)) cannot be encrypted to (\(error))")
        }
    }
}

/// An `AGE-SECRET-KEY-PQ-1…` private key: a 32-byte X-Wing seed.
public struct HybridIdentity: AgeIdentity {
    /// The seed (the swift-crypto key type is not Sendable).
    private let seed: [UInt8]
    private var privateKey: XWingMLKEM768X25519.PrivateKey {
        // A 32-byte seed always expands to a key.
        try! XWingMLKEM768X25519.PrivateKey(seedRepresentation: seed, publicKey: nil)
    }

    /// A new random key.
    public init() {
        var generator = SystemRandomNumberGenerator()
        seed = (0..<HybridKEM.seedSize).map { _ in generator.next() }
    }

    /// Parses an `AGE-SECRET-KEY-PQ-1…` string (uppercase Bech32, as age writes it).
    public init(_ text: String) throws {
        guard text.hasPrefix(HybridKEM.identityPrefix + "1"), let (hrp, data) = Bech32.decode(text), hrp == HybridKEM.identityPrefix.lowercased(),
              data.count == HybridKEM.seedSize
        else { throw AgeError.invalidKey("this is not a post-quantum age identity (AGE-SECRET-KEY-PQ-1…)") }
        seed = data
    }

    public var string: String { Bech32.encode(hrp: HybridKEM.identityPrefix, data: seed).uppercased() }
    public var recipient: HybridRecipient { HybridRecipient(publicKey: Array(privateKey.publicKey.rawRepresentation)) }

    public func unwrap(_ stanzas: [Stanza]) throws -> [UInt8]? {
        let privateKey = self.privateKey
        for stanza in stanzas where stanza.type == HybridKEM.stanzaType {
            guard stanza.arguments.count == 1 else {
                throw AgeError.malformedHeader("an mlkem768x25519 stanza has \(stanza.arguments.count) arguments, not 1")
            }
            guard let enc = Base64.decodeUnpadded(Array(stanza.arguments[0].utf8)), enc.count == HybridKEM.encapsulationSize else {
                throw AgeError.malformedHeader("an mlkem768x25519 stanza's encapsulated key is not 1120 bytes of canonical base64")
            }
            guard stanza.body.count == AgeKDF.fileKeySize + 16 else {
                throw AgeError.malformedHeader("an mlkem768x25519 stanza's body is \(stanza.body.count) bytes, not 32")
            }
            // X25519's part of the encapsulated key (its last 32 bytes) must not be a low-order
            // point: the shared secret would be all zeros, which age refuses as X25519 stanzas'.
            guard !AgeKDF.isLowOrder(Array(enc.suffix(32))) else {
                throw AgeError.malformedHeader("an mlkem768x25519 stanza's X25519 share is a low-order point")
            }
            // ML-KEM rejects implicitly: another recipient's stanza decapsulates to a wrong key,
            // and the body then does not open.
            guard var recipient = try? HPKE.Recipient(privateKey: privateKey, ciphersuite: HybridKEM.suite, info: HybridKEM.info, encapsulatedKey: Data(enc)),
                  let fileKey = try? recipient.open(stanza.body, authenticating: Data())
            else { continue }
            return Array(fileKey)
        }
        return nil
    }
}
