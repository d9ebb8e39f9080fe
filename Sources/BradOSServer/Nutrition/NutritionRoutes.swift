import Foundation
import GRDB
import Hummingbird

/// The nutrition plan API (GTSD science service): `GET`/`PUT /auth/profile` and
/// `POST /v1/plans/generate {"forceRecompute": bool}`, answering `{success, data}`. Bearer token.
///
/// A computed plan is kept for 7 days and served again (`recomputed: false`) unless
/// `forceRecompute` is set or the profile changed since; a new computation reports the
/// previous targets. Plan generation is rate limited per client (20 a minute by default:
/// 429 with `Retry-After` past it). `PUT /auth/profile` validates each field it is sent
/// (weights and the target 30–300 kg, the goal and activity level among the known values).
struct NutritionRoutes {
    let database: ServerDatabase
    let auth: AuthRoutes
    /// The limit on `POST /v1/plans/generate`, per client (``ServerConfiguration/planRateLimit``).
    var generationLimit = RateLimiter(limit: 0, window: 60)
    var now: @Sendable () -> Date = { Date() }

    struct NutritionPlanInfo: Codable, Sendable, Equatable {
        var id: Int
        /// The plan's owner (the spec's `Plan.userId`; here the user's id, a UUID).
        var userId: String?
        var name: String
        var description: String
        var startDate: Date
        var endDate: Date
        var status: String
    }

    struct Stored: Codable, Sendable {
        var plan: NutritionPlanInfo
        var targets: NutritionScience.Targets
        var whyItWorks: NutritionScience.WhyItWorks
    }

    struct Generated: Encodable {
        var plan: NutritionPlanInfo
        var targets: NutritionScience.Targets
        var whyItWorks: NutritionScience.WhyItWorks
        var recomputed: Bool
        var previousTargets: NutritionScience.Targets?
    }

    struct Envelope<T: Encodable>: Encodable {
        var success = true
        var data: T
    }

    struct GenerateBody: Decodable { var forceRecompute: Bool? }

    struct ProfileUpdate: Decodable {
        var currentWeight: Double?
        /// The day the weight was logged (`YYYY-MM-DD`), when the client queued it earlier;
        /// today when absent.
        var currentWeightDate: String?
        var targetWeight: Double?
        var goal: String?
        var activityLevel: String?
        var height: Double?
        var age: Int?
        var sex: String?
    }

    static let planTTL: TimeInterval = 7 * 86400

    static func migrate(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v6-plans") { db in
            try db.execute(sql: """
                CREATE TABLE plan_profile (
                    userId TEXT PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                    currentWeight REAL, targetWeight REAL, goal TEXT, activityLevel TEXT, height REAL, age INTEGER, sex TEXT,
                    onboardingCompleted INTEGER NOT NULL DEFAULT 0,
                    updatedAt REAL NOT NULL
                );
                CREATE TABLE nutrition_plan (
                    userId TEXT PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                    document TEXT NOT NULL,
                    computedAt REAL NOT NULL
                );
                """)
        }
    }

    /// The weights a user logged, one a day (the last of the day wins): every `PUT
    /// /auth/profile` with a `currentWeight` adds today's.
    static func migrateWeights(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v8-plan-weights") { db in
            try db.execute(sql: """
                CREATE TABLE plan_weight (
                    userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    day TEXT NOT NULL,
                    weight REAL NOT NULL,
                    PRIMARY KEY (userId, day)
                );
                """)
        }
    }

    /// `GET /auth/profile/weights`: the logged weights, oldest first, and the target.
    struct WeightHistory: Encodable {
        struct Entry: Encodable { var date: String; var weight: Double }
        var targetWeight: Double?
        var weights: [Entry]
    }

    /// How many days of weights the history holds at most.
    static let weightHistoryDays = 365

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/auth/profile/weights") { request, _ in
            let user = try auth.authenticate(request)
            return try JSON.response(Envelope(data: try weights(user.id)))
        }
        router.get("/auth/profile") { request, _ in
            let user = try auth.authenticate(request)
            guard let profile = try loadProfile(user.id) else { throw HTTPError(.notFound, message: "No profile yet: complete onboarding first.") }
            return try JSON.response(Envelope(data: profile))
        }
        router.put("/auth/profile") { request, _ in
            let user = try auth.authenticate(request)
            let update = try await JSON.decode(ProfileUpdate.self, from: request)
            let profile = try updateProfile(user.id, update)
            return try JSON.response(Envelope(data: profile))
        }
        router.post("/v1/plans/generate") { request, context in
            // Per client: its bearer token, else its address (one shared bucket when neither is known).
            let client = request.headers[.authorization] ?? (context as? any RemoteAddressRequestContext)?.remoteAddress?.description ?? "anonymous"
            if let wait = generationLimit.admit(client) {
                throw HTTPError(.tooManyRequests, headers: [.retryAfter: String(wait)],
                                message: "Too many plan requests: at most \(generationLimit.limit) in \(Int(generationLimit.window)) s. Retry after \(wait) s.")
            }
            let user = try auth.authenticate(request)
            let body = (try? await JSON.decode(GenerateBody.self, from: request)) ?? GenerateBody(forceRecompute: false)
            return try JSON.response(Envelope(data: try generate(user.id, force: body.forceRecompute ?? false)))
        }
    }

    func weights(_ userID: String) throws -> WeightHistory {
        try database.writer.read { db in
            let target = try Double.fetchOne(db, sql: "SELECT targetWeight FROM plan_profile WHERE userId = ?", arguments: [userID])
            let rows = try Row.fetchAll(db, sql: """
                SELECT day, weight FROM (SELECT day, weight FROM plan_weight WHERE userId = ? ORDER BY day DESC LIMIT ?) ORDER BY day
                """, arguments: [userID, Self.weightHistoryDays])
            return WeightHistory(targetWeight: target, weights: rows.map { WeightHistory.Entry(date: $0["day"], weight: $0["weight"]) })
        }
    }

    /// `2026-11-25` for `date`, in UTC.
    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// The days a logged weight may fall on: from a year ago to tomorrow (string order is date order).
    static func dayRange(_ now: Date) -> ClosedRange<String> {
        day(now.addingTimeInterval(-366 * 86400))...day(now.addingTimeInterval(86400))
    }

    func loadProfile(_ userID: String) throws -> NutritionScience.Profile? {
        try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM plan_profile WHERE userId = ?", arguments: [userID]).map(Self.profile)
        }
    }

    static func profile(_ row: Row) -> NutritionScience.Profile {
        NutritionScience.Profile(currentWeight: row["currentWeight"] ?? 0, targetWeight: row["targetWeight"] ?? 0, goal: row["goal"] ?? "",
                            activityLevel: row["activityLevel"] ?? "", height: row["height"] ?? 0, age: row["age"] ?? 0, sex: row["sex"] ?? "",
                            onboardingCompleted: row["onboardingCompleted"], updatedAt: Date(timeIntervalSince1970: row["updatedAt"]))
    }

    /// Validates and applies a (partial) profile update.
    /// - Throws: `HTTPError(.badRequest)` naming the invalid field.
    func updateProfile(_ userID: String, _ update: ProfileUpdate) throws -> NutritionScience.Profile {
        func check(_ condition: Bool, _ message: String) throws { if !condition { throw HTTPError(.badRequest, message: message) } }
        if let value = update.currentWeight { try check((30...300).contains(value), "currentWeight must be 30-300 kg.") }
        if let value = update.targetWeight { try check((30...300).contains(value), "targetWeight must be 30-300 kg.") }
        if let value = update.height { try check((100...250).contains(value), "height must be 100-250 cm.") }
        if let value = update.age { try check((13...120).contains(value), "age must be 13-120.") }
        if let value = update.goal { try check(NutritionScience.goals.contains(value), "goal must be one of \(NutritionScience.goals.joined(separator: ", ")).") }
        if let value = update.activityLevel {
            try check(NutritionScience.activityMultipliers[value] != nil, "activityLevel must be one of \(NutritionScience.activityMultipliers.keys.sorted().joined(separator: ", ")).")
        }
        if let value = update.sex { try check(NutritionScience.sexes.contains(value), "sex must be male or female.") }
        var weightDay = Self.day(now())
        if let value = update.currentWeightDate {
            // A logged day: a real date, not after tomorrow (time zones), not before a year ago.
            let known = Self.dayRange(now())
            // (A day that parses and prints back the same: no 31 February rolled into March.)
            try check(value.count == 10 && known.contains(value) && VisitRoutes.date(value + "T00:00:00Z").map(Self.day) == value,
                      "currentWeightDate must be a day (YYYY-MM-DD) within the last year.")
            weightDay = value
        }
        return try database.writer.write { db in
            let existing = try Row.fetchOne(db, sql: "SELECT * FROM plan_profile WHERE userId = ?", arguments: [userID])
            func value<T: DatabaseValueConvertible>(_ new: T?, _ column: String) -> T? { new ?? existing?[column] }
            let current = value(update.currentWeight, "currentWeight")
            let target = value(update.targetWeight, "targetWeight")
            let goal = value(update.goal, "goal")
            let activity = value(update.activityLevel, "activityLevel")
            let height = value(update.height, "height")
            let age = value(update.age, "age")
            let sex = value(update.sex, "sex")
            let complete = current != nil && target != nil && goal != nil && activity != nil && height != nil && age != nil && sex != nil
            try db.execute(sql: """
                INSERT INTO plan_profile (userId, currentWeight, targetWeight, goal, activityLevel, height, age, sex, onboardingCompleted, updatedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(userId) DO UPDATE SET currentWeight = excluded.currentWeight, targetWeight = excluded.targetWeight,
                    goal = excluded.goal, activityLevel = excluded.activityLevel, height = excluded.height, age = excluded.age,
                    sex = excluded.sex, onboardingCompleted = excluded.onboardingCompleted, updatedAt = excluded.updatedAt
                """, arguments: [userID, current, target, goal, activity, height, age, sex, complete, now().timeIntervalSince1970])
            if let weight = update.currentWeight {
                try db.execute(sql: """
                    INSERT INTO plan_weight (userId, day, weight) VALUES (?, ?, ?)
                    ON CONFLICT(userId, day) DO UPDATE SET weight = excluded.weight
                    """, arguments: [userID, weightDay, weight])
            }
            return Self.profile(try Row.fetchOne(db, sql: "SELECT * FROM plan_profile WHERE userId = ?", arguments: [userID])!)
        }
    }

    /// The user's plan: the stored one while valid, else computed now.
    func generate(_ userID: String, force: Bool) throws -> Generated {
        guard let profile = try loadProfile(userID) else {
            throw HTTPError(.notFound, message: "No plan found: complete onboarding first.")
        }
        guard profile.onboardingCompleted else {
            throw HTTPError(.badRequest, message: "Complete onboarding before generating a plan (your profile is missing fields).")
        }
        let now = now()
        return try database.writer.write { db in
            var stored: Stored?
            var computedAt = 0.0
            if let row = try Row.fetchOne(db, sql: "SELECT document, computedAt FROM nutrition_plan WHERE userId = ?", arguments: [userID]) {
                stored = try? Self.decoder.decode(Stored.self, from: Data((row["document"] as String).utf8))
                computedAt = row["computedAt"]
            }
            if !force, var stored, now.timeIntervalSince1970 - computedAt < Self.planTTL,
               profile.updatedAt.timeIntervalSince1970 <= computedAt {
                stored.plan.userId = userID
                return Generated(plan: stored.plan, targets: stored.targets, whyItWorks: stored.whyItWorks, recomputed: false, previousTargets: nil)
            }
            let targets = NutritionScience.targets(profile, now: now)
            let start = Calendar(identifier: .gregorian).startOfDay(for: now)
            let plan = NutritionPlanInfo(
                id: (stored?.plan.id ?? 0) + 1, userId: userID, name: "Week of \(start.formatted(.iso8601.year().month().day()))",
                description: "\(targets.calorieTarget) kcal and \(targets.proteinTarget) g protein a day, \(targets.waterTarget) ml of water.",
                startDate: start, endDate: start.addingTimeInterval(7 * 86400), status: "active")
            let new = Stored(plan: plan, targets: targets, whyItWorks: NutritionScience.whyItWorks(profile, targets))
            let document = String(decoding: try JSON.encoder.encode(new), as: UTF8.self)
            try db.execute(sql: """
                INSERT INTO nutrition_plan (userId, document, computedAt) VALUES (?, ?, ?)
                ON CONFLICT(userId) DO UPDATE SET document = excluded.document, computedAt = excluded.computedAt
                """, arguments: [userID, document, now.timeIntervalSince1970])
            return Generated(plan: plan, targets: targets, whyItWorks: new.whyItWorks, recomputed: true, previousTargets: stored?.targets)
        }
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = VisitRoutes.date(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a date"))
            }
            return date
        }
        return decoder
    }()

    /// The demo user is onboarded (86 kg → 78 kg, moderately active); alice has not finished onboarding.
    static func seedDemo(_ database: ServerDatabase, users: [String], now: Date = Date()) throws {
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO plan_profile (userId, currentWeight, targetWeight, goal, activityLevel, height, age, sex, onboardingCompleted, updatedAt)
                VALUES (?, 86, 78, 'lose_weight', 'moderately_active', 178, 34, 'male', 1, ?)
                """, arguments: [users[0], now.timeIntervalSince1970 - 86400])
            if users.count > 1 {
                try db.execute(sql: """
                    INSERT INTO plan_profile (userId, currentWeight, targetWeight, goal, activityLevel, height, age, sex, onboardingCompleted, updatedAt)
                    VALUES (?, 64, NULL, 'maintain', NULL, 168, 29, 'female', 0, ?)
                    """, arguments: [users[1], now.timeIntervalSince1970 - 86400])
            }
            // Eight weeks of weigh-ins, most mornings, from 89.4 kg down to today's 86 kg.
            for daysAgo in stride(from: 56, through: 1, by: -1) where daysAgo % 7 != 3 {
                let trend = 86.0 + 3.4 * Double(daysAgo) / 56
                let wobble = 0.35 * sin(Double(daysAgo) * 1.7) + 0.2 * sin(Double(daysAgo) * 0.45)
                let weight = daysAgo == 1 ? 86.0 : ((trend + wobble) * 10).rounded() / 10
                try db.execute(sql: "INSERT INTO plan_weight (userId, day, weight) VALUES (?, ?, ?)",
                               arguments: [users[0], Self.day(now.addingTimeInterval(-Double(daysAgo) * 86400)), weight])
            }
        }
    }
}
