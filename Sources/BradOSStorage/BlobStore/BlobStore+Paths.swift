import Crypto
import Foundation

// Where a blob lives on disk, its file name and its checksum.
extension BlobStore {
    /// Where the blob for `key` lives on disk (whether or not it is cached).
    public func fileURL(for key: BlobKey) -> URL { fileURL(key, name: Self.fileName(key)) }

    /// `<bucket>/<first two hex digits>/<name>`: 256 folders per bucket keep directories small
    /// and spread inode allocation (a single folder made file creation the bottleneck).
    func fileURL(_ key: BlobKey, name: String) -> URL { fileURL(bucket: key.bucket, name: name) }

    func fileURL(bucket: String, name: String) -> URL { Self.fileURL(in: directory, bucket: bucket, name: name) }

    /// Whether an index row names a file inside the cache: a plain bucket name and a SHA-256
    /// file name. An index from elsewhere (an imported archive) is never trusted with paths.
    package static func isSafe(bucket: String, name: String) -> Bool {
        let plain = { (byte: UInt8) in (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 95 }
        return !bucket.isEmpty && bucket.utf8.count <= 64 && bucket.utf8.allSatisfy(plain)
            && name.utf8.count == 64 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func fileURL(in directory: URL, bucket: String, name: String) -> URL {
        directory.appendingPathComponent(bucket, isDirectory: true)
            .appendingPathComponent(String(name.prefix(2)), isDirectory: true).appendingPathComponent(name)
    }

    /// The file name of a key: the SHA-256 of its identifier, in hex.
    public static func fileName(_ key: BlobKey) -> String { sha256(Data(key.identifier.utf8)) }

    /// The checksum stored for a blob: `xxh64:` and 16 hex digits.
    static func checksum(_ data: Data) -> String {
        var value = XXH64.hash(data).bigEndian
        return "xxh64:" + Hex.encode(withUnsafeBytes(of: &value) { Array($0) })
    }

    /// The file name of a key: the SHA-256 of its identifier, in hex.
    static func sha256(_ data: Data) -> String { Hex.encode(SHA256.hash(data: data)) }
}
