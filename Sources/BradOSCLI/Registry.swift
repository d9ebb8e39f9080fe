import BradOSCore
import Coach
import MusicLibrary
import MealPlan
import NutritionPlan
import Visits

/// The domain registry: adding a domain is one module plus one line here.
public enum Registry {
    public static let plugins: [any DomainPlugin] = [
        MealPlanPlugin(),
        VisitsPlugin(),
        LibraryPlugin(),
        CoachPlugin(),
        NutritionPlanPlugin(),
    ]
}
