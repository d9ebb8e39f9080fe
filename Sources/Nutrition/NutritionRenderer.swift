import BradOSCore
import BradOSNetworking
import BradOSPictures
import BradOSStorage
import BradOSTerminal
import Foundation

/// Human and JSON output of the plan domain. JSON documents: `{source: DataSource, plan:
/// NutritionPlan, change: {previous, new}?}`.
public struct NutritionRenderer: Sendable {
    let output: Output
    /// `plan show`'s weight trend: drawn under the targets.
    let trend: Trend?

    public init(output: Output) {
        self.output = output
        trend = nil
    }

    init(output: Output, trend: Trend?) {
        self.output = output
        self.trend = trend
    }

    /// What the weight trend is drawn with: the picture choice (no plot when it draws
    /// nothing), the terminal's size, the weights still queued, and now.
    struct Trend: Sendable {
        var choice: ArtChoice
        var area: (columns: Int, rows: Int)
        var queued: [PendingOperation]
        var now: Date
    }

    struct Document: Encodable {
        var source: DataSource
        var plan: NutritionPlan
        @NullWhenAbsent var change: NutritionPlanChange?
        @NullWhenAbsent var weights: WeightsDocument?
        /// The plan inputs changed and not sent yet (`plan set`), when there are any.
        @NullWhenAbsent var pending: PendingInputs?
        /// Targets estimated for a queued weight or target weight (which figures, from what),
        /// until the service's plan replaces them.
        @NullWhenAbsent var estimate: TargetEstimate?
    }

    /// The weights in `--json`: oldest first, queued ones last and marked.
    struct WeightsDocument: Encodable {
        /// Kilograms, whatever `units` says (as every `--json` figure: SI, named with its unit).
        @NullWhenAbsent var targetWeightKg: Double?
        /// The name before 0.4, deprecated: ``targetWeightKg``.
        @NullWhenAbsent var targetWeight: Double?
        /// The target is a `plan set target-weight` not sent yet.
        var targetWeightPending: Bool
        var points: [WeightLog.Point]

        init(_ log: WeightLog) {
            targetWeightKg = log.targetWeight
            targetWeight = log.targetWeight
            targetWeightPending = log.targetPending
            points = log.points
        }
    }

    public enum View: Sendable { case summary, targets, why }

    /// Prints a plan in one of the views; a significant change is announced first, and a
    /// cached copy older than the service's window is said to be (on stderr, `--json` too).
    public func render(_ result: NutritionPlanResult, view: View) throws {
        if let stale = NutritionRepository.staleness(of: result.source) {
            output.notice(stale.summary + (stale.recovery.map { " " + $0 } ?? ""))
        }
        let log = trend.map { WeightLog(history: result.weights, queued: $0.queued) }
        let pending = trend.map { PendingInputs($0.queued) }.flatMap { $0.isEmpty ? nil : $0 }
        let estimate = view == .why ? nil : trend.flatMap { TargetEstimate.estimate(result.data, weights: result.weights, queued: $0.queued) }
        if output.format == .json {
            let weights = view == .summary ? log.map(WeightsDocument.init) : nil
            return try output.json(Document(source: result.source, plan: result.data, change: result.change, weights: weights,
                                            pending: view == .summary ? pending : nil, estimate: estimate))
        }
        if let change = result.change { announce(change) }
        let data = result.data
        output.line(output.styled(data.plan.name, .bold) + " · \(Format.day(data.plan.startDate)) → \(Format.day(data.plan.endDate)) · "
                    + output.styled(result.source.origin, .dim))
        switch view {
        case .summary, .targets: targets(data.targets, detailed: view == .targets, estimate: estimate)
        case .why: why(data.whyItWorks)
        }
        if view == .summary, let pending {
            output.line(output.styled("Pending: \(pending.summary(output.forms))", .yellow)
                        + output.styled(" (shown before the service confirms it; `brados plan sync` sends it)", .dim))
        }
        if view == .summary, let trend, let log { weights(log, trend: trend) }
    }

    /// The weight line and, when pictures are drawn, the trend's plot under it.
    func weights(_ log: WeightLog, trend: Trend) {
        guard let summary = log.summary(now: trend.now, forms: output.forms) else { return }
        output.line()
        output.line(output.styled(summary, .bold) + output.styled(" · brados plan history", .dim))
        guard trend.choice.drawing != nil else { return }
        let width = max(20, min(64, trend.area.columns - 26))
        let colours = output.colors && trend.choice.colours != .none
        let plot = log.plot(width: width, height: 8, colours: colours, forms: output.forms)
        for line in plot { output.line("  " + line) }
        if log.points.contains(where: \.queued) {
            output.line(output.styled("  ⠁⠄⠁ queued, not sent yet (`brados plan sync`)", .yellow))
        }
    }

    /// `plan history`: the weights, newest first, with the change from the one before.
    func history(_ log: WeightLog) throws {
        if output.format == .json { return try output.json(WeightsDocument(log)) }
        guard !log.points.isEmpty else {
            return output.line("No weights logged yet: `brados plan weight \(output.forms.units == .metric ? "84.5" : "186")` logs one.")
        }
        var rows: [[String]] = []
        for (index, point) in log.points.enumerated().reversed() {
            let change = index > 0 ? point.weight - log.points[index - 1].weight : nil
            rows.append([point.date, Format.fixed(output.forms.weightValue(point.weight), decimals: 1),
                         change.map { Format.signed(output.forms.weightValue($0), decimals: 1) } ?? "",
                         point.queued ? "queued" : "sent"])
        }
        output.line(output.styled("\(log.points.count) weight\(log.points.count == 1 ? "" : "s")", .bold)
                    + (log.targetText(output.forms).map { " · " + $0 } ?? ""))
        output.table(Table(headers: ["DATE", output.forms.units.weightUnit.uppercased(), "CHANGE", "STATUS"], rows: rows, rightAligned: [1, 2]))
    }

    /// The plan shown in `view`, for ``CacheReader``: the plan's source is where it came from,
    /// and a refreshed plan is shown again only when its content differs.
    public func presenter(_ view: View) -> Presenter { Presenter(renderer: self, view: view) }

    public struct Presenter: CachePresenter, Sendable {
        let renderer: NutritionRenderer
        let view: View
        public func render(_ value: NutritionPlanResult, source: DataSource) throws {
            var shown = value
            shown.source = source
            try renderer.render(shown, view: view)
        }

        public func rerender(old: NutritionPlanResult, new: NutritionPlanResult) throws -> Bool {
            guard !new.data.sameContent(as: old.data) else { return false }
            try renderer.rerender(new, view: view)
            return true
        }
    }

    /// After a refresh in the second half of the TTL found a different plan.
    public func rerender(_ result: NutritionPlanResult, view: View) throws {
        if output.format == .json { return try render(result, view: view) }
        output.line()
        output.line(output.styled("↻ updated from the network", .cyan))
        try render(result, view: view)
    }

    func announce(_ change: NutritionPlanChange) {
        var parts: [String] = []
        if change.previous.calorieTarget != change.new.calorieTarget {
            parts.append("calories \(Format.count(change.previous.calorieTarget)) → \(Format.count(change.new.calorieTarget)) kcal")
        }
        if change.previous.proteinTarget != change.new.proteinTarget {
            parts.append("protein \(change.previous.proteinTarget) → \(change.new.proteinTarget) g")
        }
        if let weeks = change.timelineWeeks {
            parts.append("timeline \(weeks < 0 ? "\(-weeks) week\(weeks == -1 ? "" : "s") shorter" : "\(weeks) week\(weeks == 1 ? "" : "s") longer")"
                         + " (\(change.previous.estimatedWeeks ?? 0) → \(change.new.estimatedWeeks ?? 0) weeks)")
        }
        output.line(output.styled("Your plan changed: ", .yellow) + parts.joined(separator: ", ") + ".")
    }

    /// The targets; with an estimate, its figures instead, each estimated one marked `≈`.
    func targets(_ served: Targets, detailed: Bool, estimate: TargetEstimate? = nil) {
        let targets = estimate?.targets ?? served
        func mark(_ figure: String, _ text: String) -> String { estimate?.isEstimated(figure) == true ? "≈ " + text : text }
        var rows = [
            ["Calories", mark("calorieTarget", "\(Format.count(targets.calorieTarget)) kcal"), "a day"],
            ["Protein", mark("proteinTarget", "\(targets.proteinTarget) g"), "a day"],
            ["Water", mark("waterTarget", output.forms.volume(targets.waterTarget)), "a day"],
            ["Weekly rate", Self.weeklyRate(targets.weeklyRate, output.forms), mark("estimatedWeeks", timeline(targets))],
        ]
        if detailed {
            rows += [["BMR", mark("bmr", "\(Format.count(targets.bmr)) kcal"), "burned at rest (Mifflin–St Jeor)"],
                     ["TDEE", mark("tdee", "\(Format.count(targets.tdee)) kcal"), "burned with your activity"]]
        }
        output.table(Table(headers: [], rows: rows.map { ["  " + $0[0], $0[1], $0[2]] }, rightAligned: [1]))
        if let estimate {
            // Two lines, each within 80 columns.
            output.line(output.styled("≈ estimated for \(estimate.basis(output.forms))", .yellow))
            output.line(output.styled("  until the service's plan replaces them (`brados plan sync` sends it).", .dim))
        }
        if !detailed { output.line(output.styled("Why these numbers: `brados plan why`.", .dim)) }
    }

    /// `+0.25 kg`, `-0.5 kg`, `-1.1 lb`: the plan's weekly rate, in the person's unit, signed.
    static func weeklyRate(_ kilograms: Double, _ forms: DisplayForms) -> String {
        let value = forms.weightValue(kilograms)
        let text = Format.number(forms.units == .metric ? value : (value * 10).rounded() / 10)
        return (value > 0 ? "+" : "") + text + " " + forms.units.weightUnit
    }

    func timeline(_ targets: Targets) -> String {
        guard let weeks = targets.estimatedWeeks else { return targets.weeklyRate == 0 ? "holding steady" : "" }
        return "about \(weeks) week\(weeks == 1 ? "" : "s") to target" + (targets.projectedDate.map { " (\(Format.day($0)))" } ?? "")
    }

    func why(_ why: WhyItWorks) {
        for card in why.all {
            output.line()
            output.line(output.styled(card.title, .bold))
            output.line("  " + card.explanation)
            output.line(output.styled("  " + card.science, .dim))
        }
    }

    /// The queue, oldest first.
    /// Where a queued change came from: this profile, an archive (paused), or another account's archive.
    static func origin(_ operation: PendingOperation, account: String?) -> String {
        guard let from = operation.importedFrom ?? (operation.isImported ? "an archive" : nil) else { return "this profile" }
        if operation.isFromAnotherAccount(than: account), let other = operation.importedAccount {
            return "account \(other), imported from \(from): held"
        }
        return "imported from \(from), paused"
    }

    /// - Parameter account: the account the profile is signed in to at the plan service: a
    ///   change another one made is labelled with it.
    public func pending(_ operations: [PendingOperation], now: Date, account: String? = nil) throws {
        if output.format == .json {
            struct Document: Encodable { var pending: [PendingOperation] }
            return try output.json(Document(pending: operations))
        }
        guard !operations.isEmpty else { return output.line("Nothing queued.") }
        output.line(output.styled("\(operations.count) change\(operations.count == 1 ? "" : "s") waiting to be sent", .bold)
                    + output.styled(" (oldest first; `brados plan sync` sends them)", .dim))
        output.table(Table(headers: ["QUEUED", "CHANGE", "ID", "ORIGIN"],
                           rows: operations.map { [Format.ago(now.timeIntervalSince($0.createdAt)), $0.summary(output.forms), String($0.id.prefix(8)),
                                                   Self.origin($0, account: account)] }))
        let foreign = operations.filter { $0.isFromAnotherAccount(than: account) }
        let paused = operations.filter(\.isImported).count - foreign.count
        if paused > 0 {
            output.notice("\(paused) imported change\(paused == 1 ? " is" : "s are") paused: `brados plan sync --include-imported` sends \(paused == 1 ? "it" : "them"), `brados sync` never does.")
        }
        for other in Set(foreign.compactMap(\.importedAccount)).sorted() {
            let count = foreign.filter { $0.importedAccount == other }.count
            output.notice("\(count) change\(count == 1 ? " was" : "s were") made by another account (\(other)): never sent to this one unless you name it, "
                          + "`brados plan sync --include-imported-from \(other)`.")
        }
    }

    /// What the user is told of a change the service refused: a weight is dropped; a plan
    /// input shown pending is rolled back to what the service holds.
    static func refused(_ operation: PendingOperation, _ error: any Error, forms: DisplayForms) -> String {
        let what: String = switch operation.kind {
        case .updateWeight: "dropped \(operation.summary(forms))"
        case .updateTargetWeight: "rolled back \(operation.summary(forms)): your plan keeps the target weight the service has"
        case .updateGoal: "rolled back \(operation.summary(forms)): your plan keeps the goal the service has"
        case .updateActivityLevel: "rolled back \(operation.summary(forms)): your plan keeps the activity level the service has"
        }
        return "\(what). The service refused it: \(error.summaryText)"
    }

    /// `--json` of a change queued offline: the document of a replay that sent nothing (one
    /// contract for `plan weight`, `plan set` and `plan sync`), `stoppedBy` saying offline.
    public func queuedOffline(_ operation: PendingOperation, remaining: [PendingOperation]) throws {
        var report = SyncReport()
        report.remaining = remaining
        report.stoppedBy = NetworkError.offlineMode
        try sync(report, queued: operation)
    }

    /// What a replay did.
    public func sync(_ report: SyncReport, queued: PendingOperation? = nil) throws {
        if output.format == .json {
            struct Dropped: Encodable { var operation: PendingOperation; var error: String }
            struct Document: Encodable {
                @NullWhenAbsent var queued: PendingOperation?
                var applied: [PendingOperation]
                var dropped: [Dropped]
                var remaining: [PendingOperation]
                @NullWhenAbsent var stoppedBy: String?
                @NullWhenAbsent var recomputeError: String?
                @NullWhenAbsent var plan: NutritionPlan?
                @NullWhenAbsent var change: NutritionPlanChange?
            }
            func text(_ error: (any Error)?) -> String? { error.map(\.summaryText) }
            return try output.json(Document(
                queued: queued, applied: report.applied, dropped: report.dropped.map { Dropped(operation: $0.operation, error: $0.error.summaryText) },
                remaining: report.remaining, stoppedBy: text(report.stoppedBy), recomputeError: text(report.recomputeError),
                plan: report.plan?.data, change: report.plan?.change))
        }
        for operation in report.applied { output.line("Sent \(operation.summary(output.forms)).") }
        for dropped in report.dropped { output.notice(Self.refused(dropped.operation, dropped.error, forms: output.forms)) }
        if let error = report.stoppedBy, !report.remaining.isEmpty {
            output.notice("\(report.remaining.count) change\(report.remaining.count == 1 ? "" : "s") still queued: \(error.summaryText)")
        }
        if let error = report.recomputeError {
            output.notice("the profile is updated, but the plan could not be recomputed: \(error.summaryText)")
        }
        if let plan = report.plan { try render(plan, view: .summary) }
        let paused = report.remaining.filter(\.isImported).count
        if paused > 0 {
            output.notice("\(paused) imported change\(paused == 1 ? " stays" : "s stay") paused (`brados plan sync --include-imported` sends them).")
        } else if queued == nil, report.applied.isEmpty, report.dropped.isEmpty, report.stoppedBy == nil {
            output.line("Nothing queued.")
        }
    }
}
