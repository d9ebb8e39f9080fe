import BradOSCore
import Foundation
import Logging

/// One plan brados received, and when.
public struct KeptPlan: Codable, Sendable, Equatable {
    public var receivedAt: Date
    public var plan: NutritionPlan

    public init(receivedAt: Date, plan: NutritionPlan) {
        self.receivedAt = receivedAt
        self.plan = plan
    }
}

/// Every plan brados has received for the profile, oldest first (the spec's
/// `archivedPlans`; "kept", because an archive is what `brados cache export` writes):
/// `kept-plans.json` in the profile's plan cache folder, so `cache export` and `cache import`
/// carry it and `auth logout` erases it with the rest of the cache.
///
/// Bounded to ``limit`` plans, the oldest dropped first: a plan is about 2 KB of JSON (its
/// "why it works" texts), and the file is read whole when a new plan comes and by `plan
/// history --plans`, so 100 plans (~200 KB, a few milliseconds to decode) cover a weekly plan
/// and a recompute for each weight logged for months without making either slow.
///
/// A plan is kept once: the service answering the same plan again (`recomputed: false`
/// within its 7-day window) adds nothing. A file that does not decode reads as empty and is
/// replaced by the next plan (it is a cache). Writes are atomic, under a file lock, so two
/// processes receiving plans at once both keep theirs. Thread-safe.
public struct KeptPlans: Sendable {
    /// How many plans are kept at most: 100 (see the type's summary).
    public static let limit = 100

    struct File: VersionedDocument {
        static let currentFormatVersion = 1
        var formatVersion = currentFormatVersion
        var plans: [KeptPlan]
    }

    public let url: URL
    let limit: Int
    private let document: VersionedJSONDocument<File>
    var lockURL: URL { url.deletingLastPathComponent().appendingPathComponent(".kept-plans.lock") }

    public init(directory: URL, limit: Int = KeptPlans.limit, logger: Logger = Logger(label: "brados.plan")) {
        url = directory.appendingPathComponent("kept-plans.json")
        self.limit = limit
        document = VersionedJSONDocument(url: url, logger: logger)
    }

    /// The plans kept, oldest first (none when the file is missing or unreadable).
    public func all() -> [KeptPlan] { document.load()?.plans ?? [] }

    /// Keeps `plan`, received at `date`, unless it is kept already; drops the oldest past ``limit``.
    /// - Parameter earlier: a plan received before any was kept (the cached plan of a brados
    ///   from before kept plans), kept first when the list is empty.
    /// - Returns: whether the plan was added.
    /// - Throws: ``StorageError``.
    @discardableResult
    public func keep(_ plan: NutritionPlan, at date: Date, earlier: KeptPlan? = nil) throws -> Bool {
        try FileLock.withExclusiveLock(at: lockURL) {
            var plans = all()
            let seeded = plans.isEmpty && earlier != nil
            if seeded, let earlier { plans.append(earlier) }
            guard !plans.contains(where: { $0.plan.sameContent(as: plan) }) else {
                if seeded { try document.save(File(plans: plans)) }
                return false
            }
            plans.append(KeptPlan(receivedAt: date, plan: plan))
            if plans.count > limit { plans.removeFirst(plans.count - limit) }
            try document.save(File(plans: plans))
            return true
        }
    }

    /// The latest kept plan with the service's id `id`.
    /// - Throws: ``NutritionError/planNotKept(id:kept:)``.
    public func plan(id: Int, in plans: [KeptPlan]) throws -> KeptPlan {
        guard let found = plans.last(where: { $0.plan.plan.id == id }) else {
            throw NutritionError.planNotKept(id: id, kept: plans.map(\.plan.plan.id))
        }
        return found
    }

    /// The two plans `plan diff` compares: `from` and `to` by id, the latest for a missing
    /// `to`, and the last two kept when neither is given.
    /// - Throws: ``NutritionError/tooFewPlansKept(count:)``, ``NutritionError/planNotKept(id:kept:)``.
    public func pair(from: Int?, to: Int?) throws -> (from: KeptPlan, to: KeptPlan) {
        let plans = all()
        guard plans.count >= 2 else { throw NutritionError.tooFewPlansKept(count: plans.count) }
        let older = try from.map { try plan(id: $0, in: plans) } ?? plans[plans.count - 2]
        let newer = try to.map { try plan(id: $0, in: plans) } ?? plans[plans.count - 1]
        return (older, newer)
    }
}

/// What changed between two kept plans (the spec's `comparePlans`): each target from one to
/// the other with its difference, and the dates.
public struct PlanComparison: Sendable, Equatable, Encodable {
    /// A number that moved from one plan to the other.
    public struct Change<Value: Sendable & Equatable & Encodable>: Sendable, Equatable, Encodable {
        public var from: Value
        public var to: Value
    }

    /// Which plan a side is.
    public struct Side: Sendable, Equatable, Encodable {
        public var id: Int
        public var name: String
        public var receivedAt: Date
        public var startDate: Date
        public var endDate: Date
    }

    public var from: Side
    public var to: Side
    public var calorieTarget: Change<Int>
    public var proteinTarget: Change<Int>
    public var waterTarget: Change<Int>
    public var bmr: Change<Int>
    public var tdee: Change<Int>
    public var weeklyRate: Change<Double>
    public var estimatedWeeks: Change<Int?>
    public var startDate: Change<Date>
    public var endDate: Change<Date>

    public init(from older: KeptPlan, to newer: KeptPlan) {
        func side(_ kept: KeptPlan) -> Side {
            Side(id: kept.plan.plan.id, name: kept.plan.plan.name, receivedAt: kept.receivedAt,
                 startDate: kept.plan.plan.startDate, endDate: kept.plan.plan.endDate)
        }
        let a = older.plan.targets
        let b = newer.plan.targets
        from = side(older)
        to = side(newer)
        calorieTarget = Change(from: a.calorieTarget, to: b.calorieTarget)
        proteinTarget = Change(from: a.proteinTarget, to: b.proteinTarget)
        waterTarget = Change(from: a.waterTarget, to: b.waterTarget)
        bmr = Change(from: a.bmr, to: b.bmr)
        tdee = Change(from: a.tdee, to: b.tdee)
        weeklyRate = Change(from: a.weeklyRate, to: b.weeklyRate)
        estimatedWeeks = Change(from: a.estimatedWeeks, to: b.estimatedWeeks)
        startDate = Change(from: older.plan.plan.startDate, to: newer.plan.plan.startDate)
        endDate = Change(from: older.plan.plan.endDate, to: newer.plan.plan.endDate)
    }

    /// Whether the targets differ at all.
    public var targetsChanged: Bool {
        calorieTarget.from != calorieTarget.to || proteinTarget.from != proteinTarget.to || waterTarget.from != waterTarget.to
            || bmr.from != bmr.to || tdee.from != tdee.to || weeklyRate.from != weeklyRate.to || estimatedWeeks.from != estimatedWeeks.to
    }
}
