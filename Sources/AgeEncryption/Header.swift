import Crypto

/// An age header: the version line, the recipient stanzas and the MAC.
public struct AgeHeader: Sendable {
    public static let versionLine = "age-encryption.org/v1"
    static let maxLine = 4096
    static let maxStanzas = 1024
    /// The largest header read (a real one is a few hundred bytes per recipient).
    static let maxSize = 1 << 20

    public var stanzas: [Stanza]
    var mac: [UInt8]
    /// The header's bytes up to and including `---`: what the MAC covers.
    var authenticated: [UInt8]

    /// The recipient types in the header, in order, once each (`X25519`, `scrypt`, …).
    public var recipientTypes: [String] {
        var seen = Set<String>()
        return stanzas.map(\.type).filter { seen.insert($0).inserted }
    }

    /// Whether the file is for a passphrase.
    public var isPassphrase: Bool { stanzas.contains { $0.type == "scrypt" } }

    static func macKey(fileKey: [UInt8]) -> SymmetricKey {
        AgeKDF.hkdf(fileKey, salt: [], info: "header")
    }

    /// Encodes a header for `stanzas`, with its MAC under `fileKey`.
    static func encode(_ stanzas: [Stanza], fileKey: [UInt8]) -> [UInt8] {
        var bytes = Array((versionLine + "\n").utf8)
        for stanza in stanzas {
            bytes += Array((["->", stanza.type] + stanza.arguments).joined(separator: " ").utf8) + [0x0A]
            let body = Base64.encode(stanza.body, padded: false)
            var offset = 0
            // Lines of 64 columns, and always a last one shorter than 64 (empty if need be).
            while true {
                let end = min(offset + 64, body.count)
                bytes += body[offset..<end] + [0x0A]
                if end - offset < 64 { break }
                offset = end
            }
        }
        bytes += Array("---".utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: bytes, using: macKey(fileKey: fileKey))
        bytes += Array(" ".utf8) + Base64.encode(Array(mac), padded: false) + [0x0A]
        return bytes
    }

    /// Parses a header from `source`, leaving it at the first byte after the header.
    /// - Throws: ``AgeError/malformedHeader(_:)``, ``AgeError/unsupportedVersion(_:)``.
    static func parse(_ source: PeekableSource) throws -> AgeHeader {
        func line() throws -> [UInt8] {
            guard let (line, newline) = try source.readLine(limit: maxLine, tooLong: AgeError.malformedHeader("a header line is longer than \(maxLine) bytes")) else {
                throw AgeError.malformedHeader("the file ends inside the header")
            }
            guard newline else { throw AgeError.malformedHeader("the file ends inside the header") }
            return line
        }
        var authenticated: [UInt8] = []
        let version = try line()
        guard version == Array(versionLine.utf8) else {
            let text = String(decoding: version.prefix(64), as: UTF8.self)
            if version.starts(with: Array("age-encryption.org/".utf8)) { throw AgeError.unsupportedVersion(text) }
            throw AgeError.malformedHeader("the first line is not \(versionLine)")
        }
        authenticated += version + [0x0A]
        var stanzas: [Stanza] = []
        var next = try line()
        while true {
            if next.starts(with: Array("---".utf8)) {
                guard next.count > 4, next[3] == UInt8(ascii: " ") else { throw AgeError.malformedHeader("the MAC line is not '--- MAC'") }
                guard let mac = Base64.decodeUnpadded(next[4...]), mac.count == 32 else {
                    throw AgeError.malformedHeader("the header MAC is not 32 bytes of canonical base64")
                }
                authenticated += next[0..<3]
                return AgeHeader(stanzas: stanzas, mac: mac, authenticated: authenticated)
            }
            guard next.starts(with: Array("-> ".utf8)) else { throw AgeError.malformedHeader("a header line starts with neither '-> ' nor '---'") }
            guard stanzas.count < maxStanzas else { throw AgeError.malformedHeader("it has more than \(maxStanzas) recipient stanzas") }
            authenticated += next + [0x0A]
            let words = next[3...].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            guard words.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0 >= 0x21 && $0 <= 0x7E } }) else {
                throw AgeError.malformedHeader("a stanza has an empty argument or a character that is not printable ASCII")
            }
            var body: [UInt8] = []
            while true {
                let bodyLine = try line()
                authenticated += bodyLine + [0x0A]
                guard authenticated.count <= maxSize else { throw AgeError.malformedHeader("it is larger than \(maxSize / 1024) KiB") }
                guard bodyLine.count <= 64 else { throw AgeError.malformedHeader("a stanza body line is longer than 64 columns") }
                body += bodyLine
                if bodyLine.count < 64 { break }
            }
            guard let decoded = Base64.decodeUnpadded(body) else { throw AgeError.malformedHeader("a stanza body is not canonical unpadded base64") }
            stanzas.append(Stanza(type: String(decoding: words[0], as: UTF8.self),
                                  arguments: words.dropFirst().map { String(decoding: $0, as: UTF8.self) }, body: decoded))
            next = try line()
        }
    }

    /// Checks what a passphrase will be needed for, before one is asked: an scrypt stanza
    /// alone, with a work factor at most `maxWorkFactor`.
    public func checkPassphraseStanza(maxWorkFactor: Int = ScryptPassphrase.maxWorkFactor) throws {
        guard isPassphrase else { return }
        guard stanzas.count == 1 else { throw AgeError.malformedHeader("an scrypt stanza must be the only one in the header") }
        guard stanzas[0].arguments.count == 2 else { throw AgeError.malformedHeader("an scrypt stanza has \(stanzas[0].arguments.count) arguments, not 2") }
        let factor = try ScryptPassphrase.workFactor(stanzas[0].arguments[1])
        guard factor <= maxWorkFactor else { throw AgeError.workFactorTooHigh(factor, limit: maxWorkFactor) }
    }

    /// Finds the file key with `identities` and checks the MAC with it.
    /// - Throws: ``AgeError/noIdentityMatched(kinds:)``, ``AgeError/headerMACMismatch``, or a
    ///   malformed-stanza error.
    func unwrap(with identities: [any AgeIdentity]) throws -> [UInt8] {
        if stanzas.contains(where: { $0.type == "scrypt" }), stanzas.count != 1 {
            throw AgeError.malformedHeader("an scrypt stanza must be the only one in the header")
        }
        for identity in identities {
            guard let fileKey = try identity.unwrap(stanzas) else { continue }
            guard fileKey.count == AgeKDF.fileKeySize else { throw AgeError.malformedHeader("the file key is not 16 bytes") }
            guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: authenticated, using: Self.macKey(fileKey: fileKey)) else {
                throw AgeError.headerMACMismatch
            }
            return fileKey
        }
        throw AgeError.noIdentityMatched(kinds: recipientTypes)
    }
}
