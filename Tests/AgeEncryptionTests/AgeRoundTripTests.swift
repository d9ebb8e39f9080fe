import AgeEncryption
import Foundation
import Testing

@Suite("age: encrypt, decrypt, keys")
struct AgeRoundTripTests {
    static func encrypt(_ plaintext: [UInt8], to recipients: [any AgeRecipient], armor: Bool = false, writes: Int = 7_777) throws -> [UInt8] {
        let sink = MemorySink()
        let encryptor = try AgeEncryptor(recipients: recipients, output: sink, armor: armor)
        var offset = 0
        while offset < plaintext.count {
            let end = min(offset + writes, plaintext.count)
            try plaintext[offset..<end].withUnsafeBytes { try encryptor.write($0) }
            offset = end
        }
        try encryptor.finish()
        return sink.bytes
    }

    static func decrypt(_ file: [UInt8], with identities: [any AgeIdentity]) throws -> [UInt8] {
        let decryptor = try AgeDecryptor(input: MemorySource(file)) { _ in identities }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 3_000)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try decryptor.read(into: $0) }
            if count == 0 { return output }
            output += buffer[0..<count]
        }
    }

    static func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

    @Test("every size round-trips (empty, around the 64 KiB chunk edge, several chunks), binary and armored",
          arguments: [0, 1, 65_535, 65_536, 65_537, 131_072, 200_001])
    func sizes(_ size: Int) throws {
        let identity = X25519Identity()
        let plaintext = Self.random(size)
        for armor in [false, true] {
            let file = try Self.encrypt(plaintext, to: [identity.recipient], armor: armor)
            #expect(try Self.decrypt(file, with: [identity]) == plaintext)
            // The payload is chunks of 64 KiB + 16-byte tags; a full last chunk is not followed by an empty one.
            if !armor {
                let chunks = max(1, (size + 65_535) / 65_536)
                let header = file.count - chunks * 16 - size
                #expect(header > 0 && header < 300, "header+nonce of \(header) bytes")
            }
        }
    }

    @Test("several recipients: each opens it, a stranger does not (no match)")
    func recipients() throws {
        let alice = X25519Identity(), bob = X25519Identity(), stranger = X25519Identity()
        let file = try Self.encrypt(Array("hello".utf8), to: [alice.recipient, bob.recipient])
        #expect(try Self.decrypt(file, with: [alice]) == Array("hello".utf8))
        #expect(try Self.decrypt(file, with: [stranger, bob]) == Array("hello".utf8))
        #expect(throws: AgeError.noIdentityMatched(kinds: ["X25519"])) { try Self.decrypt(file, with: [stranger]) }
    }

    @Test("a passphrase: the right one opens it; a wrong one is no match; it cannot be mixed; a work factor above the limit is refused")
    func passphrase() throws {
        let file = try Self.encrypt(Array("secret".utf8), to: [ScryptPassphrase("correct horse", workFactor: 10)], armor: true)
        #expect(try Self.decrypt(file, with: [ScryptPassphrase("correct horse")]) == Array("secret".utf8))
        #expect(throws: AgeError.noIdentityMatched(kinds: ["scrypt"])) { try Self.decrypt(file, with: [ScryptPassphrase("wrong")]) }
        #expect(throws: AgeError.workFactorTooHigh(10, limit: 9)) { try Self.decrypt(file, with: [ScryptPassphrase("correct horse", maxWorkFactor: 9)]) }
        #expect(throws: AgeError.self) { try Self.encrypt([1], to: [ScryptPassphrase("a", workFactor: 10), X25519Identity().recipient]) }
    }

    @Test("tampering: a flipped header byte, a flipped middle or last chunk byte, truncation and an appended byte are refused")
    func tampering() throws {
        let identity = X25519Identity()
        let plaintext = Self.random(3 * 65_536 + 100)
        let file = try Self.encrypt(plaintext, to: [identity.recipient])
        let headerEnd = file.count - plaintext.count - 4 * 16
        func failure(_ bytes: [UInt8]) -> String? {
            do { _ = try Self.decrypt(bytes, with: [identity]); return nil } catch let error as AgeError { return error.failureClass } catch { return "\(error)" }
        }
        // "X25519" becomes "X25518": an unknown recipient type, so no identity matches.
        var header = file; header[30] ^= 1
        #expect(failure(header) == "no match")
        // A MAC character changed: another MAC (HMAC failure) or no longer valid base64.
        var mac = file; mac[headerEnd - 20] ^= 1
        #expect(["HMAC failure", "header failure"].contains(failure(mac)), "\(failure(mac) ?? "success")")
        // The payload nonce: another payload key, so the first chunk fails.
        var nonce = file; nonce[headerEnd - 10] ^= 1
        #expect(failure(nonce) == "payload failure")
        var middle = file; middle[headerEnd + 65_536 + 500] ^= 1
        #expect(failure(middle) == "payload failure")
        var last = file; last[file.count - 5] ^= 1
        #expect(failure(last) == "payload failure")
        #expect(failure(Array(file.dropLast())) == "payload failure")
        #expect(failure(Array(file.prefix(headerEnd + 2 * 65_552))) == "payload failure")
        #expect(failure(file + [0]) == "payload failure")
        #expect(failure(file) == nil)
    }

    @Test("keys: Bech32 strings round-trip; bad strings, mixed case and wrong prefixes are refused")
    func keys() throws {
        let vector = "AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0"
        let identity = try X25519Identity(vector)
        #expect(identity.string == vector)
        let recipient = identity.recipient.string
        #expect(recipient.hasPrefix("age1") && recipient.count == 62)
        #expect(try X25519Recipient(recipient) == identity.recipient)
        #expect(throws: AgeError.self) { try X25519Recipient(recipient.uppercased()) }
        #expect(throws: AgeError.self) { try X25519Identity(vector.lowercased()) }
        #expect(throws: AgeError.self) { try X25519Recipient(String(recipient.dropLast()) + (recipient.last == "q" ? "p" : "q")) }
        #expect(throws: AgeError.self) { try X25519Recipient("age1") }
        let file = try AgeIdentityFile.parse("# created: now\n# public key: \(recipient)\n\n  \(vector)\r\n")
        #expect(file.map(\.string) == [vector])
        #expect(throws: AgeError.self) { try AgeIdentityFile.parse("# only a comment\n") }
        #expect(try AgeRecipientsFile.parse("# bob\n\(recipient)\n").count == 1)
        #expect(throws: AgeError.self) { try AgeRecipientsFile.parse("ssh-ed25519 AAAA...\n") }
    }
}
