import ArgumentParser
import BradOSCore

/// The meal plan domain: the latest finalized session, cached on disk and never re-fetched.
public struct MealPlanPlugin: DomainPlugin {
    public static let domainName = "mealplan"

    public init() {}
    public var name: String { Self.domainName }
    public var summary: String { "The latest finalized meal plan, cached on disk and never re-fetched." }
    public var command: any ParsableCommand.Type { MealPlanCommand.self }

    /// The finalized plan is never re-fetched, unless asked (`brados sync --mealplan`).
    public func sync(_ env: AppEnvironment, options: SyncOptions) async throws -> String? {
        guard options.includeMealPlan else { return nil }
        let loaded = try await MealPlanStore.live(env).refresh()
        return "meal plan \(loaded.session.id)"
    }
}
