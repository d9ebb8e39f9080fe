import BradOSCore
import BradOSTerminal
import Foundation

/// Human and JSON output of meal plans.
struct MealPlanRenderer: CachePresenter {
    let output: Output
    let now: Date

    /// The JSON document of `show`, `refresh`, `new`, `critique` and `finalize`.
    struct Document: Encodable {
        var source: DataSource
        var session: MealPlanSession
    }

    func render(_ session: MealPlanSession, source: DataSource) throws {
        if output.format == .json {
            return try output.json(Document(source: source, session: session))
        }
        output.line(headline(session, source: source))
        var rows: [[String]] = []
        for day in session.days.sorted(by: { $0.day < $1.day }) {
            for (index, meal) in day.meals.enumerated() {
                rows.append([index == 0 ? day.name : "", meal.mealType, meal.recipeName, "\(meal.calories)", "\(meal.protein) g"])
            }
        }
        output.table(Table(headers: ["DAY", "MEAL", "RECIPE", "KCAL", "PROTEIN"], rows: rows, rightAligned: [3, 4]))
        let average = session.dailyAverage
        output.line("Per day on average: \(average.calories) kcal, \(average.protein) g protein.")
        if !session.critiques.isEmpty {
            output.line("Critiques:")
            for (index, critique) in session.critiques.enumerated() {
                output.line("  \(index + 1). \"\(critique.text)\"" + (critique.response.map { " → \($0)" } ?? ""))
            }
        }
    }

    func headline(_ session: MealPlanSession, source: DataSource) -> String {
        let state = session.finalizedAt.map { "finalized \(Format.day($0))" } ?? (session.isFinalized ? "finalized" : "draft, not finalized")
        return output.styled("Meal plan \(session.id)", .bold) + " · \(state) · " + output.styled(source.origin, .dim)
    }

    func renderToday(_ session: MealPlanSession, source: DataSource, timeZone: TimeZone = .local) throws {
        guard let day = session.day(for: now, timeZone: timeZone) else {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            throw MealPlanError.noMealsToday(weekday: calendar.weekdaySymbols[calendar.component(.weekday, from: now) - 1])
        }
        if output.format == .json {
            struct Today: Encodable { var source: DataSource; var sessionId: String; var day: MealPlanDay }
            return try output.json(Today(source: source, sessionId: session.id, day: day))
        }
        output.line(output.styled("Today, \(day.name)", .bold) + " · meal plan \(session.id) · " + output.styled(source.origin, .dim))
        output.table(Table(headers: ["MEAL", "RECIPE", "KCAL", "PROTEIN"],
                           rows: day.meals.map { [$0.mealType, $0.recipeName, "\($0.calories)", "\($0.protein) g"] }, rightAligned: [2, 3]))
        output.line("Total: \(day.meals.reduce(0) { $0 + $1.calories }) kcal, \(day.meals.reduce(0) { $0 + $1.protein }) g protein.")
    }

}
