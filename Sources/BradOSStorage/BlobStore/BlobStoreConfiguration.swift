import Foundation

/// How a ``BlobStore`` behaves.
public struct BlobStoreConfiguration: Sendable {
    /// The most bytes kept on disk, over all buckets together: 250 MB by default.
    public var capacity: Int64
    /// When a write passes the capacity, entries are evicted down to `capacity × trimRatio`,
    /// so that not every write sweeps: 0.85 by default.
    public var trimRatio: Double
    /// Bytes kept in memory for the life of the process: 64 MB by default.
    public var memoryCapacity: Int
    /// Checks the SHA-256 of every blob read from disk (size is always checked): on by default.
    public var verifyChecksums: Bool
    /// Accepts only blobs that look like images (PNG, JPEG, GIF, WebP): on by default.
    public var requireImageData: Bool

    public init(capacity: Int64 = 250_000_000, trimRatio: Double = 0.85, memoryCapacity: Int = 64 << 20,
                verifyChecksums: Bool = true, requireImageData: Bool = true) {
        self.capacity = capacity
        self.trimRatio = trimRatio
        self.memoryCapacity = memoryCapacity
        self.verifyChecksums = verifyChecksums
        self.requireImageData = requireImageData
    }

    /// Whether `data` starts like an image file.
    static func looksLikeImage(_ data: Data) -> Bool { ImageFormat(sniffing: data) != nil }
}
