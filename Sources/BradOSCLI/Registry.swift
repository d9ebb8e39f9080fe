import BradOSArchive
import BradOSCalendar
import BradOSNotifications
import BradOSCore
import BradOSPictures
import BradOSSearch
import Coach
import MusicLibrary
import MealPlan
import Nutrition
import Visits

/// The registry of domains and features: adding a domain (or a feature the core calls) is one
/// module plus one line here.
public enum Registry {
    public static let plugins: [any DomainPlugin] = [
        MealPlanPlugin(),
        VisitsPlugin(),
        LibraryPlugin(),
        CoachPlugin(),
        NutritionPlugin(),
    ]

    /// The features the core calls at its hook points (settings, recovery, derived data).
    public static let features: [any Feature] = [
        ArchiveFeature(),
        CalendarFeature(),
        NotificationsFeature(),
        SearchFeature(),
        PicturesFeature(),
    ]
}
