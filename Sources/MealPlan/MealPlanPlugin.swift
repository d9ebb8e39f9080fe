import ArgumentParser
import BradOSCore

/// The meal plan domain: the latest finalized session, cached on disk and never re-fetched.
public struct MealPlanPlugin: DomainPlugin {
    public static let domainName = "mealplan"

    public init() {}
    public var name: String { Self.domainName }
    public var summary: String { "The latest finalized meal plan, cached on disk and never re-fetched." }
    public var command: any ParsableCommand.Type { MealPlanCommand.self }
}
