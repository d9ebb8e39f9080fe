import BradOSCore
import BradOSStorage
import Foundation
import Logging
import Synchronization

/// Where a profile's library store lives, opened once per command on first use. A read
/// finds nothing without creating a database; the first open moves a JSON snapshot of an
/// older brados into it (``LibraryCache/migrateLegacySnapshot(_:logger:)``).
public final class LibraryCacheHandle: Sendable {
    /// `<profile data>/library/library.sqlite`.
    public let url: URL
    /// `snapshot.json` beside it: what older brados wrote.
    let legacyURL: URL
    let logger: Logger
    private let opened = Mutex<LibraryCache?>(nil)

    public init(url: URL, logger: Logger = Logger(label: "brados.library")) {
        self.url = url
        legacyURL = url.deletingLastPathComponent().appendingPathComponent("snapshot.json")
        self.logger = logger
    }

    public convenience init(profile: ProfileScope, logger: Logger = Logger(label: "brados.library")) {
        self.init(url: LibraryPlugin.databaseURL(profile), logger: logger)
    }

    /// The database, created when missing.
    /// - Throws: ``StorageError``.
    public func database() throws -> LibraryCache {
        try opened.withLock { opened in
            if let opened { return opened }
            let database = try LibraryCache(url: url, logger: logger)
            database.migrateLegacySnapshot(legacyURL, logger: logger)
            opened = database
            return database
        }
    }

    /// The database when there is one (or a snapshot of an older brados to move into one);
    /// `nil` before the first refresh.
    /// - Throws: ``StorageError``.
    public func existingDatabase() throws -> LibraryCache? {
        if opened.withLock({ $0 }) == nil, !FileSystem.exists(url), !FileSystem.exists(legacyURL) { return nil }
        return try database()
    }
}
