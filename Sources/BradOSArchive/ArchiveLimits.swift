import BradOSCore
import Foundation

/// Limits that keep a hostile archive from filling the disk (zip-bomb defence).
public struct ArchiveLimits: Sendable, Equatable {
    /// Total uncompressed bytes: 20 GB by default (`archive.max-bytes`).
    public var maxBytes: Int64
    /// Entries, manifest included: 200,000 by default (`archive.max-entries`).
    public var maxEntries: Int
    /// Uncompressed bytes per compressed byte, checked past the first 4 MB: 200 by default (`archive.max-ratio`).
    public var maxRatio: Int

    public init(maxBytes: Int64 = 20_000_000_000, maxEntries: Int = 200_000, maxRatio: Int = 200) {
        self.maxBytes = maxBytes
        self.maxEntries = maxEntries
        self.maxRatio = maxRatio
    }
}
