import BradOSCore
import BradOSStorage
import Foundation

/// The on-disk cache of the latest finalized meal plan session: one slot.
public protocol MealPlanCaching: Sendable {
    /// The stable path of the cache file (`latest-session.json`), whether or not it exists.
    var fileURL: URL { get }
    /// The cached session, or `nil` when missing or unreadable (an unreadable file is removed).
    func cached() -> CachedMealPlan?
    /// Writes a finalized session. Does nothing for a draft or for the session already cached.
    /// - Returns: whether the file was written.
    /// - Throws: ``StorageError``.
    /// - Parameter finalizedHere: this profile finalized it (`mealplan finalize`).
    @discardableResult func store(_ session: MealPlanSession, finalizedHere: Bool) throws -> Bool
    /// Replaces the cached session with a finalized one in one atomic write (a refresh).
    /// - Throws: ``StorageError``; the cached session is as it was then.
    func replace(with session: MealPlanSession) throws
    /// Deletes the cached session.
    /// - Throws: ``StorageError``.
    func invalidate() throws
    /// Whether the cached session has this id.
    func isCached(sessionID: String) -> Bool
}

/// The cache file's document. Its JSON shape is a stable interface for other programs
/// (see docs/mealplan.md): `{"formatVersion": 1, "cachedAt": ISO-8601, "session": {…}}`.
public struct CachedMealPlan: VersionedDocument, Equatable {
    /// The current format version. A file of another version reads as missing.
    public static let currentFormatVersion = 1

    public var formatVersion: Int
    public var cachedAt: Date
    public var session: MealPlanSession
    /// This profile finalized it (`mealplan finalize`): `sync --watch --notify` does not tell
    /// the person of their own plan. Absent in files written before it was kept.
    public var finalizedHere: Bool?

    public init(cachedAt: Date, session: MealPlanSession, finalizedHere: Bool? = nil) {
        formatVersion = Self.currentFormatVersion
        self.cachedAt = cachedAt
        self.session = session
        self.finalizedHere = finalizedHere
    }
}

extension MealPlanCaching {
    /// Writes a finalized session fetched from the service (not finalized here).
    @discardableResult public func store(_ session: MealPlanSession) throws -> Bool { try store(session, finalizedHere: false) }
}
