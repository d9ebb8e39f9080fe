import Crypto

/// The STREAM construction age uses for the payload: 64 KiB chunks, each sealed with
/// ChaCha20-Poly1305 under a nonce of an 11-byte big-endian counter and a last-chunk flag.
enum AgeStream {
    static let chunkSize = 64 * 1024
    static let tagSize = 16
    static let nonceSize = 16

    static func payloadKey(fileKey: [UInt8], nonce: [UInt8]) -> SymmetricKey {
        AgeKDF.hkdf(fileKey, salt: nonce, info: "payload")
    }

    static func nonce(_ counter: UInt64, last: Bool) -> ChaChaPoly.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 { bytes[3 + index] = UInt8(truncatingIfNeeded: counter >> (8 * (7 - UInt64(index)))) }
        bytes[11] = last ? 1 : 0
        return try! ChaChaPoly.Nonce(data: bytes)
    }
}

/// Encrypts to age recipients, as a sink: what is written to it is sealed chunk by chunk and
/// written on to `output` (the binary format, or the armor with `armor: true`). No plaintext
/// is kept beyond the chunk being filled. Call ``finish()`` at the end: it seals the last
/// chunk, which carries the last-chunk flag.
public final class AgeEncryptor: ByteSink {
    private let output: ByteSink
    private let armor: ArmorWriter?
    private let key: SymmetricKey
    private var buffer: [UInt8]
    private var counter: UInt64 = 0
    private var finished = false

    /// Refuses, before any data, a set of recipients age does not allow together (none, a
    /// passphrase with others, post-quantum with classic ones: as age 1.3, the classic one
    /// would be the weak link), one that cannot be encrypted to, or so many that the header
    /// would be larger than an age file's may be.
    /// - Throws: ``AgeError/invalidUse(_:)``, ``AgeError/invalidKey(_:)``.
    public static func check(_ recipients: [any AgeRecipient]) throws {
        try checkKinds(recipients)
        guard !recipients.contains(where: \.isPassphrase) else { return }
        // Wrapped once with a throwaway key (a passphrase's scrypt is not run twice).
        let throwaway = [UInt8](repeating: 0, count: AgeKDF.fileKeySize)
        try checkSize(try recipients.flatMap { try $0.wrap(fileKey: throwaway) }, recipients: recipients.count)
    }

    static func checkKinds(_ recipients: [any AgeRecipient]) throws {
        guard !recipients.isEmpty else { throw AgeError.invalidUse("there is no recipient to encrypt to") }
        if recipients.contains(where: \.isPassphrase), recipients.count > 1 {
            throw AgeError.invalidUse("a passphrase cannot be combined with other recipients")
        }
        if recipients.contains(where: \.isPostQuantum), recipients.contains(where: { !$0.isPostQuantum }) {
            throw AgeError.invalidUse("post-quantum (age1pq1…) and classic (age1…) recipients cannot be combined: a file is only as strong as its weakest recipient")
        }
    }

    /// The header stays one that brados (and age) read back.
    static func checkSize(_ stanzas: [Stanza], recipients: Int) throws {
        let size = AgeHeader.encode(stanzas, fileKey: [UInt8](repeating: 0, count: AgeKDF.fileKeySize)).count
        guard stanzas.count <= AgeHeader.maxStanzas, size <= AgeHeader.maxSize else {
            throw AgeError.invalidUse("\(recipients) recipients make a header of \(size / 1024) KiB, over the \(AgeHeader.maxSize / 1024) KiB (and \(AgeHeader.maxStanzas) stanzas) an age file may have")
        }
    }

    /// Writes the header at once.
    /// - Throws: what ``check(_:)`` throws.
    public init(recipients: [any AgeRecipient], output: ByteSink, armor: Bool = false) throws {
        try Self.checkKinds(recipients)
        var generator = SystemRandomNumberGenerator()
        let fileKey = (0..<AgeKDF.fileKeySize).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let nonce = (0..<AgeStream.nonceSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let stanzas = try recipients.flatMap { try $0.wrap(fileKey: fileKey) }
        try Self.checkSize(stanzas, recipients: recipients.count)
        self.armor = armor ? try ArmorWriter(output: output) : nil
        self.output = self.armor ?? output
        key = AgeStream.payloadKey(fileKey: fileKey, nonce: nonce)
        buffer = []
        buffer.reserveCapacity(AgeStream.chunkSize)
        try self.output.write(AgeHeader.encode(stanzas, fileKey: fileKey) + nonce)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !finished else { throw AgeError.invalidUse("write after finish") }
        var offset = 0
        while offset < bytes.count {
            // A full chunk is sealed only once more data follows: the last one is flagged.
            if buffer.count == AgeStream.chunkSize { try seal(last: false) }
            let count = min(AgeStream.chunkSize - buffer.count, bytes.count - offset)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
            offset += count
        }
    }

    /// Seals the last chunk (empty only when nothing was written) and ends the armor.
    public func finish() throws {
        guard !finished else { return }
        try seal(last: true)
        finished = true
        try armor?.finish()
    }

    private func seal(last: Bool) throws {
        let box = try ChaChaPoly.seal(buffer, using: key, nonce: AgeStream.nonce(counter, last: last))
        try box.ciphertext.withUnsafeBytes { try output.write($0) }
        try box.tag.withUnsafeBytes { try output.write($0) }
        counter += 1
        buffer.removeAll(keepingCapacity: true)
    }
}

/// How an age file is encoded.
public enum AgeFormat: String, Sendable {
    case binary
    case armored

    /// Detects an age file from its first bytes: the binary header's first line, or the armor's
    /// BEGIN line after optional whitespace. `nil` for anything else.
    public static func detect(_ source: PeekableSource) throws -> AgeFormat? {
        let prefix = Array(try source.peek(1024))
        if prefix.starts(with: Array("age-encryption.org/".utf8)) { return .binary }
        let text = prefix.drop { ArmorReader.isWhitespace($0) }
        if text.starts(with: ArmorReader.begin) { return .armored }
        return nil
    }
}

/// Decrypts an age file, as a source: reading it yields the plaintext, each chunk released
/// only after its tag verified. The header is read and the file key unwrapped (and the header
/// MAC checked) when it is made. The end is checked: a missing last chunk, an empty last
/// chunk after others and any data after the last chunk are errors.
public final class AgeDecryptor: ByteSource {
    public let header: AgeHeader
    public let format: AgeFormat
    private let input: ByteSource
    private let key: SymmetricKey
    private var cipher: [UInt8]
    private var cipherCount = 0
    private var plain: [UInt8] = []
    private var plainOffset = 0
    private var counter: UInt64 = 0
    private var done = false
    private var failure: AgeError?

    /// - Parameters:
    ///   - format: `nil` detects it from the first bytes.
    ///   - identities: given the header (its recipient types: is a passphrase needed?),
    ///     the identities to try, in order.
    /// - Throws: ``AgeError`` (header, no match, MAC), or what `input` throws.
    public init(input: ByteSource, format: AgeFormat? = nil, identities: (AgeHeader) throws -> [any AgeIdentity]) throws {
        let outer = input as? PeekableSource ?? PeekableSource(input)
        guard let format = try format ?? AgeFormat.detect(outer) else { throw AgeError.notAgeFile }
        let inner = format == .armored ? PeekableSource(try ArmorReader(outer)) : outer
        let header = try AgeHeader.parse(inner)
        let fileKey = try header.unwrap(with: try identities(header))
        var nonce = [UInt8](repeating: 0, count: AgeStream.nonceSize)
        guard try nonce.withUnsafeMutableBytes({ try inner.readFully(into: $0) }) == AgeStream.nonceSize else {
            throw AgeError.malformedHeader("the file ends before the payload nonce")
        }
        self.header = header
        self.format = format
        self.input = inner
        key = AgeStream.payloadKey(fileKey: fileKey, nonce: nonce)
        cipher = [UInt8](repeating: 0, count: AgeStream.chunkSize + AgeStream.tagSize + 1)
    }

    public func read(into target: UnsafeMutableRawBufferPointer) throws -> Int {
        while plainOffset == plain.count {
            // A chunk that authenticated is released before the error found after it.
            if let failure { throw failure }
            if done { return 0 }
            try nextChunk()
        }
        let count = min(target.count, plain.count - plainOffset)
        plain.withUnsafeBytes { target.baseAddress!.copyMemory(from: $0.baseAddress! + plainOffset, byteCount: count) }
        plainOffset += count
        return count
    }

    /// Reads and opens the next chunk. A full chunk followed by more data is a middle chunk;
    /// the chunk at the end of the input is the last, and must carry the last-chunk flag.
    /// A chunk is released only once its tag verified (under either flag); what is wrong with
    /// where it stands (data after a last chunk, no last chunk) is thrown after it.
    private func nextChunk() throws {
        let full = AgeStream.chunkSize + AgeStream.tagSize
        while cipherCount <= full {
            let count = try cipher.withUnsafeMutableBytes { try input.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[cipherCount...])) }
            if count == 0 { break }
            cipherCount += count
        }
        plainOffset = 0
        if cipherCount > full {
            if let opened = open(0..<full, last: false) {
                plain = opened
            } else if let opened = open(0..<full, last: true) {
                plain = opened
                failure = .payloadDamaged(chunk: counter, reason: .trailingData)
            } else {
                throw AgeError.payloadDamaged(chunk: counter, reason: .authentication)
            }
            cipher[0] = cipher[full]
            cipherCount = 1
        } else {
            guard cipherCount >= AgeStream.tagSize else { throw AgeError.payloadDamaged(chunk: counter, reason: .truncated) }
            if let opened = open(0..<cipherCount, last: true) {
                guard !opened.isEmpty || counter == 0 else { throw AgeError.payloadDamaged(chunk: counter, reason: .emptyFinalChunk) }
                plain = opened
                done = true
            } else if cipherCount == full, let opened = open(0..<cipherCount, last: false) {
                // A middle chunk at the end: the chunks after it are missing.
                plain = opened
                failure = .payloadDamaged(chunk: counter + 1, reason: .truncated)
            } else {
                throw AgeError.payloadDamaged(chunk: counter, reason: .authentication)
            }
            cipherCount = 0
        }
        counter += 1
    }

    private func open(_ range: Range<Int>, last: Bool) -> [UInt8]? {
        let split = range.upperBound - AgeStream.tagSize
        guard let box = try? ChaChaPoly.SealedBox(nonce: AgeStream.nonce(counter, last: last),
                                                  ciphertext: cipher[range.lowerBound..<split], tag: cipher[split..<range.upperBound]),
              let plaintext = try? ChaChaPoly.open(box, using: key)
        else { return nil }
        return Array(plaintext)
    }
}
