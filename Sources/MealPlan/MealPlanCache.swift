import BradOSCore
import BradOSStorage
import Foundation
import Logging

/// The default ``MealPlanCaching``: `latest-session.json` in the profile's `mealplan` cache
/// folder, written atomically (0600). A missing, truncated, undecodable or wrong-version file
/// reads as missing and is left as it is (the next finalized plan replaces it; a file of
/// another version may be a newer brados's); a non-finalized one reads as missing and is
/// removed (it should never have been cached). Thread-safe.
public struct MealPlanCache: MealPlanCaching {
    public static let fileName = "latest-session.json"

    public let fileURL: URL
    private let document: VersionedJSONDocument<CachedMealPlan>
    private let now: @Sendable () -> Date

    public init(directory: URL, logger: Logger = Logger(label: "brados.mealplan"), now: @escaping @Sendable () -> Date = { Date() }) {
        fileURL = directory.appendingPathComponent(Self.fileName)
        document = VersionedJSONDocument(url: fileURL, logger: logger)
        self.now = now
    }

    public func cached() -> CachedMealPlan? {
        guard let cached = document.load() else { return nil }
        guard cached.session.isFinalized, !cached.session.id.isEmpty else {
            try? document.remove()
            return nil
        }
        return cached
    }

    @discardableResult
    public func store(_ session: MealPlanSession, finalizedHere: Bool = false) throws -> Bool {
        guard session.isFinalized, !isCached(sessionID: session.id) else { return false }
        try document.save(CachedMealPlan(cachedAt: now(), session: session, finalizedHere: finalizedHere ? true : nil))
        return true
    }

    /// Replaces the cached plan with a finalized `session` (the same one refreshed, or
    /// another), in one atomic write.
    /// - Throws: ``StorageError``; the cached plan is as it was then.
    public func replace(with session: MealPlanSession) throws {
        guard session.isFinalized else { return }
        try document.save(CachedMealPlan(cachedAt: now(), session: session))
    }

    public func invalidate() throws { try document.remove() }

    public func isCached(sessionID: String) -> Bool { cached()?.session.id == sessionID }
}
