import AgeEncryption
import BradOSCore
import Foundation

/// How `cache export` encrypts: to age recipients (X25519 keys, or one passphrase), in the
/// binary format or the armor. The archive code sees only a stream: the archive writer writes
/// compressed bytes to the encryptor, which writes sealed chunks to the file.
public struct ArchiveEncryption: Sendable {
    public var recipients: [any AgeRecipient]
    public var armor: Bool

    public init(recipients: [any AgeRecipient], armor: Bool = false) {
        self.recipients = recipients
        self.armor = armor
    }
}

/// How `cache verify|import` opens an encrypted archive: given its header (which recipient
/// types it has: is a passphrase needed?), the identities to try. Asked only when the file
/// is encrypted, so a plain archive never prompts.
public struct ArchiveDecryption: Sendable {
    public var identities: @Sendable (AgeHeader) throws -> [any AgeIdentity]

    public init(identities: @escaping @Sendable (AgeHeader) throws -> [any AgeIdentity]) {
        self.identities = identities
    }
}

/// What `cache verify` reports about an encrypted archive.
public struct ArchiveEncryptionInfo: Codable, Sendable, Equatable {
    /// `age`.
    public var format: String
    public var armored: Bool
    /// The header's recipient types (`X25519`, `scrypt`, or others age allows).
    public var recipientTypes: [String]
    public var recipients: Int
}

/// An archive opened for reading: plain (tar, tar.gz, tar.zst) or age-encrypted, detected
/// from the first bytes. Decrypted bytes only ever pass through memory.
///
/// Opening an encrypted one reads its header and unwraps the file key at once (a passphrase
/// prompt happens here), so a command opens it before it starts a progress display.
public struct ArchiveInput {
    let source: ByteSource
    /// How the archive is encrypted (`nil`: it is not).
    public let encryption: ArchiveEncryptionInfo?
    private let decryptor: AgeDecryptor?

    /// - Parameter decryption: asked only when the archive is encrypted (`nil`: refuse it).
    /// - Throws: ``AgeError`` (wrong key, damaged header), ``ArchiveError``.
    public init(fd: Int32, decryption: ArchiveDecryption?) throws {
        let peekable = PeekableSource(FileDescriptorSource(fd))
        guard let format = try AgeFormat.detect(peekable) else {
            source = peekable
            encryption = nil
            decryptor = nil
            return
        }
        let decryption = decryption ?? ArchiveDecryption { header in throw AgeError.noUsableIdentity(kinds: header.recipientTypes) }
        let decryptor = try AgeDecryptor(input: peekable, format: format, identities: decryption.identities)
        self.decryptor = decryptor
        source = decryptor
        encryption = ArchiveEncryptionInfo(format: "age", armored: format == .armored, recipientTypes: decryptor.header.recipientTypes,
                                           recipients: decryptor.header.stanzas.count)
    }

    /// Reads an encrypted input to its end once the archive is read: libarchive stops at the
    /// tar end, and the chunks after it (the last-chunk flag, a changed last chunk, appended
    /// data) must be checked too before anything is trusted.
    func finish() throws {
        guard let decryptor else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while try decryptor.read(into: buffer) > 0 {}
    }
}
