import BradOSCore
import MealPlan

/// The domain registry: adding a domain is one module plus one line here.
enum Registry {
    static let plugins: [any DomainPlugin] = [
        MealPlanPlugin(),
    ]
}
