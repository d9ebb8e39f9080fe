import BradOSCore
import BradOSTerminal
import Foundation

extension NutritionRenderer {
    /// `plan history --plans`: the plans kept, newest first, by their ids in the profile.
    /// JSON: `{plans: [{id, receivedAt, plan}]}`, oldest first.
    func keptPlans(_ plans: [KeptNutritionPlan], now: Date) throws {
        if output.format == .json {
            struct Document: Encodable { var limit: Int; var plans: [KeptNutritionPlan] }
            return try output.json(Document(limit: KeptNutritionPlans.limit, plans: plans))
        }
        guard !plans.isEmpty else {
            return output.line("No plans kept yet: every plan brados receives (`brados plan show`) is kept here.")
        }
        output.line(output.styled("\(plans.count) plan\(plans.count == 1 ? "" : "s") kept", .bold)
                    + output.styled(" (the last \(KeptNutritionPlans.limit) at most; `brados plan diff A B` compares two)", .dim))
        let rows = plans.reversed().map { kept -> [String] in
            let targets = kept.plan.targets
            return [String(kept.id), Format.ago(now.timeIntervalSince(kept.receivedAt)),
                    "\(Format.day(kept.plan.plan.startDate)) → \(Format.day(kept.plan.plan.endDate))",
                    Format.count(targets.calorieTarget), "\(targets.proteinTarget)", "\(output.forms.volumeValue(targets.waterTarget))",
                    kept.plan.plan.name]
        }
        output.table(Table(headers: ["ID", "RECEIVED", "DATES", "KCAL", "PROTEIN G", "WATER \(output.forms.units.volumeUnit.uppercased())", "NAME"], rows: rows, rightAligned: [0, 3, 4, 5]))
    }

    /// `plan diff`: what changed from one kept plan to another. JSON: ``NutritionPlanComparison``.
    func comparison(_ comparison: NutritionPlanComparison) throws {
        if output.format == .json { return try output.json(comparison) }
        let from = comparison.from
        let to = comparison.to
        output.line(output.styled("Plan \(from.id) → plan \(to.id)", .bold)
                    + output.styled(" · received \(Format.day(from.receivedAt)) and \(Format.day(to.receivedAt))", .dim))
        func row(_ name: String, _ change: NutritionPlanComparison.Change<Int>, _ unit: String) -> [String] {
            [name, "\(Format.count(change.from)) → \(Format.count(change.to)) \(unit)", Self.difference(change.to - change.from)]
        }
        var rows = [
            row("Calories", comparison.calorieTarget, "kcal"),
            row("Protein", comparison.proteinTarget, "g"),
            row("Water", .init(from: output.forms.volumeValue(comparison.waterTarget.from), to: output.forms.volumeValue(comparison.waterTarget.to)),
                output.forms.units.volumeUnit),
            row("BMR", comparison.bmr, "kcal"),
            row("TDEE", comparison.tdee, "kcal"),
            ["Weekly rate", "\(Self.weeklyRate(comparison.weeklyRate.from, output.forms)) → \(Self.weeklyRate(comparison.weeklyRate.to, output.forms))",
             Self.difference(output.forms.weightValue(comparison.weeklyRate.to - comparison.weeklyRate.from))],
        ]
        if comparison.estimatedWeeks.from != nil || comparison.estimatedWeeks.to != nil {
            let weeks = comparison.estimatedWeeks
            rows.append(["Timeline", "\(weeks.from.map(String.init) ?? "–") → \(weeks.to.map(String.init) ?? "–") weeks",
                         weeks.from.flatMap { a in weeks.to.map { b in Self.difference(b - a) } } ?? ""])
        }
        rows.append(["Dates", "\(Format.day(from.startDate))–\(Format.day(from.endDate)) → \(Format.day(to.startDate))–\(Format.day(to.endDate))",
                     comparison.startDate.from == comparison.startDate.to && comparison.endDate.from == comparison.endDate.to ? "same" : ""])
        output.table(Table(headers: [], rows: rows.map { ["  " + $0[0], $0[1], $0[2]] }))
        if !comparison.targetsChanged { output.line(output.styled("The targets are the same.", .dim)) }
    }

    /// `+12`, `-102`, `same`.
    static func difference(_ value: Int) -> String {
        value == 0 ? "same" : Format.signed(value)
    }

    /// `+0.5`, `-0.25`, `same` (a weight a week, in the unit shown).
    static func difference(_ value: Double) -> String {
        abs(value) < 0.005 ? "same" : (value > 0 ? "+" : "-") + Format.number(abs(value))
    }
}
