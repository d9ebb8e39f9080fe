import BradOSCore
import BradOSErrors

/// Failures of the meal plan domain.
public enum MealPlanError: BradOSError {
    /// The account has no meal plan at all.
    case noPlanYet
    /// `critique`/`finalize` without a plan in progress.
    case noPlanInProgress
    /// The plan in progress is already finalized.
    case alreadyFinalized(id: String)
    /// The plan has no meals for today.
    case noMealsToday(weekday: String)

    public var summary: String {
        switch self {
        case .noPlanYet: "There is no meal plan yet."
        case .noPlanInProgress: "No meal plan is in progress."
        case let .alreadyFinalized(id): "Meal plan \(id) is already finalized."
        case let .noMealsToday(weekday): "The meal plan has nothing for \(weekday)."
        }
    }

    public var recovery: String? {
        switch self {
        case .noPlanYet, .noPlanInProgress, .alreadyFinalized: "Start one with `brados mealplan new`."
        case .noMealsToday: "See the whole week with `brados mealplan show`."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .alreadyFinalized: .rejected
        default: .notFound
        }
    }
}
