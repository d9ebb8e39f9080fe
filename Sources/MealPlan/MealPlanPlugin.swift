import ArgumentParser
import BradOSCore

/// The meal plan domain: the latest finalized session, cached on disk and never re-fetched.
public struct MealPlanPlugin: DomainPlugin {
    public static let domainName = "mealplan"

    public init() {}
    public var name: String { Self.domainName }
    public var summary: String { "The latest finalized meal plan, cached on disk and never re-fetched." }
    public var command: any ParsableCommand.Type { MealPlanCommand.self }

    /// A finalized plan is kept until it is replaced: it is never stale and never re-fetched
    /// (a new plan invalidates it, finalizing writes it, `refresh` forces a fetch).
    public static let cachePolicy = CachePolicy(freshFor: nil, revalidation: .never)

    /// `brados sync --mealplan`.
    public static let refreshFlag = SyncFlag(name: "mealplan", help: "Refresh the finalized meal plan too (it is never re-fetched otherwise).")
    public var syncFlags: [SyncFlag] { [Self.refreshFlag] }
    public var syncDescription: String? { "left alone (a finalized plan is never re-fetched) unless --mealplan" }

    /// The finalized plan is never re-fetched, unless asked (`brados sync --mealplan`).
    public func sync(_ env: AppEnvironment, options: SyncOptions) async throws -> String? {
        guard options.isSet(Self.refreshFlag) else { return nil }
        let loaded = try await MealPlanStore.live(env).refresh()
        return "meal plan \(loaded.session.id)"
    }
}
