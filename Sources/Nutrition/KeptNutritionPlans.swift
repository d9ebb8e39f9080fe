import BradOSCore
import BradOSStorage
import Foundation
import Logging

/// One plan brados received, and when.
public struct KeptNutritionPlan: Codable, Sendable, Equatable {
    /// The plan's id in this profile (`plan history --plans`, `plan diff`): 1 for the first
    /// plan kept, one more for each after, never used twice, whichever server sent the plan
    /// (two servers both number their plans from 1; the service's own id is `plan.plan.id`).
    /// 0 until the plan is kept.
    public var id: Int
    public var receivedAt: Date
    public var plan: NutritionPlan

    public init(id: Int = 0, receivedAt: Date, plan: NutritionPlan) {
        self.id = id
        self.receivedAt = receivedAt
        self.plan = plan
    }

    enum CodingKeys: String, CodingKey { case id, receivedAt, plan }

    /// A plan kept by a brados from before these ids has none (0): ``KeptNutritionPlans`` gives it one when read.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int.self, forKey: .id) ?? 0
        receivedAt = try container.decode(Date.self, forKey: .receivedAt)
        plan = try container.decode(NutritionPlan.self, forKey: .plan)
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
public struct KeptNutritionPlans: Sendable {
    /// How many plans are kept at most: 100 (see the type's summary).
    public static let limit = 100

    /// Version 1 throughout: a plan's `id` and the file's `nextID` were added later as
    /// optional fields, so an older brados reads the file as it did (and a file it wrote gets
    /// its ids when read).
    struct File: VersionedDocument {
        static let currentFormatVersion = 1
        var formatVersion = currentFormatVersion
        /// The id the next plan kept gets (absent in files from before these ids).
        var nextID: Int?
        var plans: [KeptNutritionPlan]

        init(nextID: Int?, plans: [KeptNutritionPlan]) {
            self.nextID = nextID
            self.plans = plans
        }

        /// The plans with an id each (those without one, from a file written before these ids,
        /// given the next ones in order), and the id the next plan gets.
        func numbered() -> (plans: [KeptNutritionPlan], next: Int) {
            var next = max(nextID ?? 1, (plans.map(\.id).max() ?? 0) + 1)
            var seen: Set<Int> = []
            let plans = plans.map { kept -> KeptNutritionPlan in
                var kept = kept
                // An id missing, or given twice (a hand-edited file), gets a new one.
                if kept.id <= 0 || !seen.insert(kept.id).inserted {
                    kept.id = next
                    next += 1
                    seen.insert(kept.id)
                }
                return kept
            }
            return (plans, next)
        }
    }

    public let url: URL
    let limit: Int
    private let document: VersionedJSONDocument<File>
    var lockURL: URL { url.deletingLastPathComponent().appendingPathComponent(".kept-plans.lock") }

    public init(directory: URL, limit: Int = KeptNutritionPlans.limit, logger: Logger = Logger(label: "brados.plan")) {
        url = directory.appendingPathComponent("kept-plans.json")
        self.limit = limit
        document = VersionedJSONDocument(url: url, logger: logger)
    }

    /// The plans kept, oldest first, each with its id (none when the file is missing or unreadable).
    public func all() -> [KeptNutritionPlan] { document.load()?.numbered().plans ?? [] }

    /// Keeps `plan`, received at `date`, unless it is kept already; drops the oldest past ``limit``.
    /// - Parameter earlier: a plan received before any was kept (the cached plan of a brados
    ///   from before kept plans), kept first when the list is empty.
    /// - Returns: whether the plan was added.
    /// - Throws: ``StorageError``.
    @discardableResult
    public func keep(_ plan: NutritionPlan, at date: Date, earlier: KeptNutritionPlan? = nil) throws -> Bool {
        try FileLock.withExclusiveLock(at: lockURL) {
            var (plans, next) = document.load()?.numbered() ?? ([], 1)
            let seeded = plans.isEmpty && earlier != nil
            if seeded, var earlier {
                earlier.id = next
                next += 1
                plans.append(earlier)
            }
            guard !plans.contains(where: { $0.plan.sameContent(as: plan) }) else {
                if seeded { try document.save(File(nextID: next, plans: plans)) }
                return false
            }
            plans.append(KeptNutritionPlan(id: next, receivedAt: date, plan: plan))
            if plans.count > limit { plans.removeFirst(plans.count - limit) }
            try document.save(File(nextID: next + 1, plans: plans))
            return true
        }
    }

    /// `cache import --merge`: a union, never a rollback. This profile's plans keep their ids;
    /// the archive's plans it does not hold (by content) are added with new ids; all oldest
    /// first, bounded to ``limit``. Written over `archive`'s file (the staged one the import
    /// moves in).
    /// - Returns: how many of the archive's plans were added.
    /// - Throws: ``StorageError``.
    public func merge(from archive: KeptNutritionPlans) throws -> Int {
        // No file in the archive: the import leaves this profile's as it is.
        guard FileSystem.exists(archive.url) else { return 0 }
        var (plans, next) = document.load()?.numbered() ?? ([], 1)
        var added = 0
        for kept in archive.all() where !plans.contains(where: { $0.plan.sameContent(as: kept.plan) }) {
            var kept = kept
            kept.id = next
            next += 1
            plans.append(kept)
            added += 1
        }
        plans = plans.enumerated().sorted { ($0.element.receivedAt, $0.offset) < ($1.element.receivedAt, $1.offset) }.map(\.element)
        if plans.count > limit { plans.removeFirst(plans.count - limit) }
        try archive.document.save(File(nextID: next, plans: plans))
        return added
    }

    /// The kept plan whose id in the profile is `id`.
    /// - Throws: ``NutritionError/planNotKept(id:kept:)``.
    public func plan(id: Int, in plans: [KeptNutritionPlan]) throws -> KeptNutritionPlan {
        guard let found = plans.first(where: { $0.id == id }) else {
            throw NutritionError.planNotKept(id: id, kept: plans.map(\.id))
        }
        return found
    }

    /// The two plans `plan diff` compares: `from` and `to` by id, the latest for a missing
    /// `to`, and the last two kept when neither is given.
    /// - Throws: ``NutritionError/tooFewPlansKept(count:)``, ``NutritionError/planNotKept(id:kept:)``.
    public func pair(from: Int?, to: Int?) throws -> (from: KeptNutritionPlan, to: KeptNutritionPlan) {
        let plans = all()
        guard plans.count >= 2 else { throw NutritionError.tooFewPlansKept(count: plans.count) }
        let older = try from.map { try plan(id: $0, in: plans) } ?? plans[plans.count - 2]
        let newer = try to.map { try plan(id: $0, in: plans) } ?? plans[plans.count - 1]
        return (older, newer)
    }
}

/// What changed between two kept plans (the spec's `comparePlans`): each target from one to
/// the other with its difference, and the dates.
public struct NutritionPlanComparison: Sendable, Equatable, Encodable {
    /// A number that moved from one plan to the other.
    public struct Change<Value: Sendable & Equatable & Encodable>: Sendable, Equatable, Encodable {
        public var from: Value
        public var to: Value
    }

    /// Which plan a side is.
    public struct Side: Sendable, Equatable, Encodable {
        /// Its id in the profile (``KeptNutritionPlan/id``).
        public var id: Int
        /// The id the service gave it.
        public var planId: Int
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

    public init(from older: KeptNutritionPlan, to newer: KeptNutritionPlan) {
        func side(_ kept: KeptNutritionPlan) -> Side {
            Side(id: kept.id, planId: kept.plan.plan.id, name: kept.plan.plan.name, receivedAt: kept.receivedAt,
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

    enum CodingKeys: String, CodingKey {
        case from, to, calorieTarget, proteinTarget, waterTargetMl, waterTarget, bmr, tdee, weeklyRateKg, weeklyRate, estimatedWeeks, startDate, endDate
    }

    /// Water as `waterTargetMl`, the weekly rate as `weeklyRateKg` (their names before 0.4 beside them, deprecated).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(calorieTarget, forKey: .calorieTarget)
        try container.encode(proteinTarget, forKey: .proteinTarget)
        try container.encode(waterTarget, forKey: .waterTargetMl)
        try container.encode(waterTarget, forKey: .waterTarget)
        try container.encode(bmr, forKey: .bmr)
        try container.encode(tdee, forKey: .tdee)
        try container.encode(weeklyRate, forKey: .weeklyRateKg)
        try container.encode(weeklyRate, forKey: .weeklyRate)
        try container.encode(estimatedWeeks, forKey: .estimatedWeeks)
        try container.encode(startDate, forKey: .startDate)
        try container.encode(endDate, forKey: .endDate)
    }

    /// Whether the targets differ at all.
    public var targetsChanged: Bool {
        calorieTarget.from != calorieTarget.to || proteinTarget.from != proteinTarget.to || waterTarget.from != waterTarget.to
            || bmr.from != bmr.to || tdee.from != tdee.to || weeklyRate.from != weeklyRate.to || estimatedWeeks.from != estimatedWeeks.to
    }
}
