@testable import AgeEncryption
import Foundation
import Testing

/// age's post-quantum hybrid recipients (mlkem768x25519: ML-KEM-768 + X25519, age 1.3).
@Suite("age: post-quantum hybrid recipients")
struct AgeHybridTests {
    /// The example key pair of the age specification (c2sp.org/age).
    static let specIdentity = "AGE-SECRET-KEY-PQ-1XX76JRALNLXDMEW0CRK45QMCCH4X06SE84UN3VPM33W6HWDX0H3SK3ZQFR"
    static let specRecipient = "age1pq1x34nzsvr0rxjsgdn8zgyhfe8j7ceq5r9rdelkjuh3y235jzxshfg87pzf5zrqtzdxz95paef6caq5aapdmwjjqpjfdyxnzr2zampc3uxy0dg4z2n2gm9su72p0pc3u0jvev55l694v78snxg3yzvcl7yda0eyytqj6a0ec477lnhcy5hzpz4zq3pxanve4cn62gqj3pjy5lqj9c6kyj4v2z8alktn8zh99970x79gjkv7522hv9kfz35zsnxhsx8wwtmu9cy3ftzjgwcp4sshn3llnylnpdsyz5jm72vefv4x5vfwytrefxg4wq3mv42wcrvkj742479zrxzpvp2p3e9fed9f0739vcu80r7ma28qfhnvlv4gfzel9q654dj3zmuvvz893azhxdvs9fxd0r7jzchzcfcs5mkyyjxhw0n2z6dvp9yn9qfdp29h0azxqyjw6v7fhyuzj7zel0uq6j9rd7wgrpz7mf5dnj43jwsgvrc8qcnhy7tu6dkdujuxzkp9xj43xe8h92ktre2a3u3s8mm5mrp9nr9pwkgtz4mdlq9hgn4fps4k57ff6wddn2fy23t47sm20r8km8sd2pcyyafnet8f0dajsrlyjeah4n3mssr6aseevuuskdvq5lzguyvpgwpta742c6698vgutzqgny8usfg0w2he7kq5vyxjd0f9hqg8xk26y9e4th0gezq92q4cpp5p2y9hf5f2cje5l0c3sa3a2qxmm38pxxvhxh99yzmfz0zk7r2s64nnwjhkfgfr3gf8xnmppcgmaykvh5sh6g7vk9790rf8ws0axmr2t7z8aae5fq2029uvcn2ghgt4fu4wgwdc0k0cz52qkvwmuzj8p8k5jgf3xzk5zmrkavjekjrpeq408xz3zxazwkc6tyfmhayrkfpjhwtz5mp8j8guqe43k2q6m2kte03vrw27y3wmqyu5etmt9dnkwcnnpmu9gz9dekfhdevf42ucshphnrk38ra6hx8w5f8q5ru0xdhrjxmwqf6cused7zc5xvq43r0zscjglpwlptpwydhqw64xz7ptjdyeyzpq2zkxtmzg29gzjpvzva4d3l0cenn9xs297wf4y4ukwrunf57xj6pm7nvrkwvtrt8hwcmgv8x7ajw7258ugf9wvkmk4052ekg87tw5vnx8nq2swyzv77v8yqlwsenvamr0zssknwts8rrhfuwj7ykysnq9jxy0uv3kuyt22djszjdtvpz6d0s0kwh8ryynddzud92emeyvvyqktd0jtj7rvvg5gch25v8smlvny3kvn5gagyz475ze2y6q466xqmz2n3hs77lddeqyta2nch5k2u5yacuk9ywnwfdzvyejnucz724hj77hrrmakm7pr3kxsrxq22ejexlud9fy2kdqmkg5yncz7jm5wv2qjk5w5kvcpqsry2yqffh2la52dxfjkjq5rzhjzeyn6dupn0qwtyv7s4lwg3xdarsdlwe2y3tujy480y7z39q259fzx6jhd2j0f5hagqpcpees7hzc2yrk5cy788uk3s7qvp5cpepx24gvws3m2g433exgwppnkjscec8qu4y9z9r7vccexjcjaen42245lmgmxmuavg9alej92322gvvyy2t6267v09ch64y0m53jff0vjj96s0ypk60hr3jw4myd6m5hpn3xjstx7tl2szhpr5qe8jj08ydjc4wy2rch2fhuy3pdfjax5awe9j99ly5hkntzz9fe5zatgjvzdd0kgtxs25njnajyf6ssekp7gelxquusn4pt25czh3scj68kq79wdn5tgm6yvm9nzavrg043x3msnygf8dweknw5jmqd0uvny6ttsn09508k0c55zfnegrm9efhxpfqdkmhh6gjtqmwze9pyyzk3tlhl53k2ykx3qheyty7saeq0d3fzv49zc0k"

    static func encrypt(_ plaintext: [UInt8], to recipients: [any AgeRecipient]) throws -> [UInt8] {
        try AgeRoundTripTests.encrypt(plaintext, to: recipients)
    }

    /// The header's stanza lines, up to the MAC line.
    static func stanzaLines(_ file: [UInt8]) -> [String] {
        let text = String(decoding: file.prefix(8_000), as: UTF8.self)
        return text.components(separatedBy: "\n").prefix { !$0.hasPrefix("---") }.filter { $0.hasPrefix("-> ") }
    }

    @Test("the specification's identity gives its recipient, and both strings round-trip")
    func specKeys() throws {
        let identity = try HybridIdentity(Self.specIdentity)
        #expect(identity.string == Self.specIdentity)
        #expect(identity.recipient.string == Self.specRecipient)
        #expect(Self.specRecipient.count == 1_959)
        #expect(try HybridRecipient(Self.specRecipient) == identity.recipient)
        #expect(try NativeRecipient(Self.specRecipient) == .hybrid(identity.recipient))
        #expect(try NativeIdentity(Self.specIdentity).recipient.string == Self.specRecipient)
    }

    /// `text` with the case of one character of its data part flipped.
    static func flipOneCase(_ text: String) -> String {
        var characters = Array(text)
        let index = characters.indices.last { characters[$0].isLetter }!
        characters[index] = Character(characters[index].isUppercase ? characters[index].lowercased() : characters[index].uppercased())
        return String(characters)
    }

    @Test("bad keys are refused: all or one character in the other case, a wrong checksum, a short key, the other kind's prefix")
    func badKeys() throws {
        #expect(throws: AgeError.self) { try HybridRecipient(Self.specRecipient.uppercased()) }
        #expect(throws: AgeError.self) { try HybridIdentity(Self.specIdentity.lowercased()) }
        #expect(throws: AgeError.self) { try HybridRecipient(Self.flipOneCase(Self.specRecipient)) }
        #expect(throws: AgeError.self) { try HybridIdentity(Self.flipOneCase(Self.specIdentity)) }
        let last = Self.specRecipient.last == "q" ? "p" : "q"
        #expect(throws: AgeError.self) { try HybridRecipient(String(Self.specRecipient.dropLast()) + last) }
        #expect(throws: AgeError.self) { try HybridRecipient(X25519Identity().recipient.string) }
        #expect(throws: AgeError.self) { try HybridIdentity(X25519Identity().string) }
        #expect(throws: AgeError.self) { try NativeRecipient("age1pq1") }
        // A well-formed string whose key bytes are not a key: an ML-KEM coefficient at or above
        // q (all 0xFF), or a low-order X25519 point (zeros after a valid ML-KEM key).
        let valid = try HybridRecipient(Self.specRecipient).publicKey
        for bytes in [[UInt8](repeating: 0xFF, count: 1_216), Array(valid.prefix(1_184)) + [UInt8](repeating: 0, count: 32)] {
            let text = Bech32.encode(hrp: "age1pq", data: bytes)
            let error = #expect(throws: AgeError.self) { try HybridRecipient(text) }
            #expect(error.map { "\($0)" }?.contains("not a valid post-quantum key") == true)
        }
        // A classic key and a hybrid one in one identity file; a recipients file the same.
        let classic = X25519Identity()
        let file = try AgeIdentityFile.parse("# two keys\n\(classic.string)\n\(Self.specIdentity)\n")
        #expect(file.map(\.string) == [classic.string, Self.specIdentity])
        let recipients = try AgeRecipientsFile.parse("\(classic.recipient.string)\n\(Self.specRecipient)\n")
        #expect(recipients.map(\.isPostQuantum) == [false, true])
        #expect(recipients.map(\.kind) == ["X25519", "mlkem768x25519"])
    }

    @Test("a file for a hybrid recipient: one mlkem768x25519 stanza (1120-byte enc, 32-byte body); every size round-trips",
          arguments: [0, 1, 65_536, 200_001])
    func roundTrip(_ size: Int) throws {
        let identity = HybridIdentity()
        let plaintext = AgeRoundTripTests.random(size)
        let file = try Self.encrypt(plaintext, to: [identity.recipient])
        let lines = Self.stanzaLines(file)
        #expect(lines.count == 1)
        let parts = try #require(lines.first).split(separator: " ")
        #expect(parts.count == 3 && parts[1] == "mlkem768x25519")
        #expect(Data(base64Encoded: String(parts[2]) + "==")?.count == 1_120)
        #expect(try AgeRoundTripTests.decrypt(file, with: [identity]) == plaintext)
        #expect(try AgeRoundTripTests.decrypt(file, with: [NativeIdentity.hybrid(identity)]) == plaintext)
    }

    @Test("several hybrid recipients: each opens it; a stranger's hybrid or classic key is no match")
    func recipients() throws {
        let alice = HybridIdentity(), bob = HybridIdentity(), stranger = HybridIdentity()
        let file = try Self.encrypt(Array("hello".utf8), to: [alice.recipient, bob.recipient])
        #expect(try AgeRoundTripTests.decrypt(file, with: [alice]) == Array("hello".utf8))
        #expect(try AgeRoundTripTests.decrypt(file, with: [stranger, X25519Identity(), bob]) == Array("hello".utf8))
        #expect(throws: AgeError.noIdentityMatched(kinds: ["mlkem768x25519"])) {
            try AgeRoundTripTests.decrypt(file, with: [stranger, X25519Identity()])
        }
    }

    /// The message of the `invalidUse` error `body` throws, or nil for any other outcome.
    static func refusal(_ body: () throws -> Void) -> String? {
        do { try body() } catch let AgeError.invalidUse(message) { return message } catch { return nil }
        return nil
    }

    @Test("post-quantum and classic recipients are never mixed in one file, nor with a passphrase")
    func neverMixed() throws {
        let hybrid = HybridIdentity().recipient, classic = X25519Identity().recipient
        #expect(Self.refusal { _ = try Self.encrypt([1], to: [hybrid, classic]) }?.contains("cannot be combined") == true)
        #expect(Self.refusal { try AgeEncryptor.check([classic, NativeRecipient.hybrid(hybrid)]) }?.contains("cannot be combined") == true)
        #expect(Self.refusal { _ = try Self.encrypt([1], to: [hybrid, ScryptPassphrase("a", workFactor: 10)]) }?.contains("passphrase") == true)
        #expect(throws: Never.self) { try AgeEncryptor.check([hybrid, HybridIdentity().recipient]) }
    }

    @Test("so many recipients that the header would pass 1 MiB are refused before writing; the most that fit are read back")
    func headerLimit() throws {
        let identity = HybridIdentity()
        #expect(Self.refusal { try AgeEncryptor.check(Array(repeating: identity.recipient, count: 700)) }?.contains("over the 1024 KiB") == true)
        let sink = MemorySink()
        #expect(throws: AgeError.self) { _ = try AgeEncryptor(recipients: Array(repeating: identity.recipient, count: 700), output: sink) }
        #expect(sink.bytes.isEmpty, "nothing written")
        let file = try Self.encrypt(Array("many".utf8), to: Array(repeating: identity.recipient, count: 600))
        #expect(try AgeRoundTripTests.decrypt(file, with: [identity]) == Array("many".utf8))
    }
}
