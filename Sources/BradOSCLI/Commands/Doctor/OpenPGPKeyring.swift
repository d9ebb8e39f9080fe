import BradOSStorage
import Crypto
import Foundation

/// The primary keys of an OpenPGP keyring, by fingerprint: what apt's `Signed-By` file trusts.
/// Reads a binary keyring (`gpg --export`, `.gpg`) or an ASCII-armored one (`.asc`, or a key
/// block inline in a deb822 source); RFC 9580's packet framing, v4 fingerprints (SHA-1) and
/// v5/v6 (SHA-256). Only what the doctor needs: no signature is checked here (apt does that).
struct OpenPGPKeyring: Equatable, Sendable {
    /// The primary keys' fingerprints, upper-case hex, in keyring order.
    let fingerprints: [String]

    enum ReadError: Error, Equatable {
        case notAKeyring(String)
    }

    /// Parses `data`, armored or binary. A keyring with no public key is an error.
    init(_ data: Data) throws {
        let bytes: [UInt8]
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN PGP PUBLIC KEY BLOCK-----") {
            bytes = try Self.dearmor(text)
        } else {
            bytes = Array(data)
        }
        var found: [String] = []
        var offset = 0
        while offset < bytes.count {
            let (tag, body, next) = try Self.packet(bytes, at: offset)
            if tag == 6, let fingerprint = Self.fingerprint(of: body) { found.append(fingerprint) }
            offset = next
        }
        guard !found.isEmpty else { throw ReadError.notAKeyring("it holds no public key") }
        fingerprints = found
    }

    /// The armored block's packets: the lines after its headers, up to the checksum (`=XXXX`).
    /// Inline in a deb822 field, each line starts with a space and an empty line is " .".
    static func dearmor(_ text: String) throws -> [UInt8] {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.map { $0 == "." ? "" : $0 }
        guard let begin = lines.firstIndex(of: "-----BEGIN PGP PUBLIC KEY BLOCK-----") else { throw ReadError.notAKeyring("no armor") }
        var index = begin + 1
        while index < lines.count, lines[index].contains(":") { index += 1 }  // Version:, Comment:
        var base64 = ""
        while index < lines.count, !lines[index].hasPrefix("-----END"), !lines[index].hasPrefix("=") {
            base64 += lines[index]
            index += 1
        }
        guard index < lines.count, let data = Data(base64Encoded: base64) else { throw ReadError.notAKeyring("its armor is not base64") }
        return Array(data)
    }

    /// The packet at `offset`: its tag, its body and where the next one starts.
    static func packet(_ bytes: [UInt8], at offset: Int) throws -> (tag: UInt8, body: ArraySlice<UInt8>, next: Int) {
        let header = bytes[offset]
        guard header & 0x80 != 0 else { throw ReadError.notAKeyring("byte \(offset) starts no packet") }
        var position = offset + 1
        func take(_ count: Int) throws -> Int {
            guard position + count <= bytes.count else { throw ReadError.notAKeyring("a packet is cut at byte \(bytes.count)") }
            let value = bytes[position..<position + count].reduce(0) { $0 << 8 | Int($1) }
            position += count
            return value
        }
        let tag: UInt8
        let length: Int
        if header & 0x40 != 0 {  // the new format
            tag = header & 0x3F
            let first = try take(1)
            switch first {
            case ..<192: length = first
            case 192..<224: length = (first - 192) << 8 + (try take(1)) + 192
            case 255: length = try take(4)
            default: throw ReadError.notAKeyring("a key packet has partial lengths")
            }
        } else {  // the old format
            tag = (header >> 2) & 0x0F
            switch header & 0x03 {
            case 0: length = try take(1)
            case 1: length = try take(2)
            case 2: length = try take(4)
            default: length = bytes.count - position
            }
        }
        guard position + length <= bytes.count else { throw ReadError.notAKeyring("a packet is cut at byte \(bytes.count)") }
        return (tag, bytes[position..<position + length], position + length)
    }

    /// RFC 9580 §5.5.4: v4, SHA-1 over 0x99, a two-octet length and the body; v5 and v6,
    /// SHA-256 over 0x9A or 0x9B and a four-octet length.
    static func fingerprint(of body: ArraySlice<UInt8>) -> String? {
        guard let version = body.first, (4...6).contains(version) else { return nil }
        let count = body.count
        let prefix: [UInt8] = version == 4
            ? [0x99, UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
            : [version == 5 ? 0x9A : 0x9B, UInt8(count >> 24 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        let input = prefix + body
        return (version == 4 ? Hex.encode(Insecure.SHA1.hash(data: input)) : Hex.encode(SHA256.hash(data: input))).uppercased()
    }
}
