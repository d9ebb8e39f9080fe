import BradOSCore
import BradOSNetworking
import BradOSTerminal
import Foundation
@testable import Nutrition
import TestSupport
import Testing

@Suite("Weight log")
struct WeightLogTests {
    static let history = WeightHistory(targetWeight: 78, weights: [
        .init(date: "2026-11-20", weight: 87.1), .init(date: "2026-11-22", weight: 86.6), .init(date: "2026-11-24", weight: 86.0),
    ])

    @Test("the service's weights come first, then the queued ones (by when they were queued), marked")
    func merges() {
        let late = PendingOperation(kind: .updateWeight, weightKg: 85.2, createdAt: Date(timeIntervalSince1970: 1_795_000_000))
        let early = PendingOperation(kind: .updateWeight, weightKg: 85.6, createdAt: Date(timeIntervalSince1970: 1_794_900_000))
        let log = WeightLog(history: Self.history, queued: [late, early])
        #expect(log.points.map(\.weight) == [87.1, 86.6, 86.0, 85.6, 85.2])
        #expect(log.points.map(\.queued) == [false, false, false, true, true])
        #expect(log.targetWeight == 78)
        #expect(WeightLog(history: nil, queued: []).points.isEmpty)
    }

    @Test("a weight is dated the person's local day: Friday evening in Pago Pago is Friday, sent as Friday, on the sparkline's Friday")
    func localDay() throws {
        let pagoPago = try #require(TimeZone(identifier: "Pacific/Pago_Pago"))
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        // 2026-11-28T05:00Z: Friday 27th, 18:00 in Pago Pago (UTC-11); Saturday 28th, 14:00 in Tokyo.
        let queued = PendingOperation(kind: .updateWeight, weightKg: 84.9, createdAt: try #require(JSONCoding.parseTimestamp("2026-11-28T05:00:00Z")))
        #expect(WeightLog(history: nil, queued: [queued], timeZone: pagoPago).points.map(\.date) == ["2026-11-27"])
        #expect(WeightLog(history: nil, queued: [queued], timeZone: tokyo).points.map(\.date) == ["2026-11-28"])
        #expect(queued.update(timeZone: pagoPago).currentWeightDate == "2026-11-27")
        let log = WeightLog(history: Self.history, queued: [queued], timeZone: pagoPago)
        let spark = try #require(log.sparkline(days: 7, now: queued.createdAt.addingTimeInterval(3600)))
        #expect(spark.values.last == 84.9, "today (Friday there) holds the weight queued this evening")
    }

    @Test("day numbers are days since 1970 (and nil for what is not a day)")
    func dayNumbers() {
        #expect(WeightLog.dayNumber("1970-01-01") == 0)
        #expect(WeightLog.dayNumber("2000-03-01") == 11017)
        #expect(WeightLog.dayNumber("2026-11-26") == 20783)
        #expect(WeightLog.dayNumber("2024-02-29") != nil)
        for bad in ["2026-13-01", "2026-11", "tomorrow", "2026-11-32", "2026/11/26", "2026-02-29", "2026-04-31", "2100-02-29"] { #expect(WeightLog.dayNumber(bad) == nil, "\(bad)") }
        #expect(WeightLog.isoDay(20783) == "2026-11-26", "the axis writes dates as every command does")
    }

    @Test("the service's answer is checked: days, 30–300 kg, in order")
    func validates() throws {
        try Self.history.validate()
        #expect(throws: NutritionError.self) { try WeightHistory(targetWeight: nil, weights: [.init(date: "26/11/2026", weight: 80)]).validate() }
        #expect(throws: NutritionError.self) { try WeightHistory(targetWeight: nil, weights: [.init(date: "2026-11-26", weight: 3000)]).validate() }
        #expect(throws: NutritionError.self) { try WeightHistory(targetWeight: nil, weights: [.init(date: "2026-11-26", weight: .nan)]).validate() }
        #expect(throws: NutritionError.self) {
            try WeightHistory(targetWeight: nil, weights: [.init(date: "2026-11-26", weight: 80), .init(date: "2026-11-25", weight: 80)]).validate()
        }
        #expect(throws: NutritionError.self) { try WeightHistory(targetWeight: 10, weights: []).validate() }
    }

    @Test("the sparkline puts each weight on its day of the last 30, gaps between; the summary gives the change")
    func sparklineAndSummary() throws {
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-25T12:00:00Z"))
        let log = WeightLog(history: Self.history, queued: [])
        let spark = try #require(log.sparkline(days: 30, now: now))
        #expect(spark.values.count == 30)
        #expect(spark.values[29] == nil && spark.values[28] == 86.0 && spark.values[26] == 86.6 && spark.values[24] == 87.1)
        #expect(spark.line.hasSuffix("█ ▅ ▁ ") && spark.line.count == 30, "\(spark.line)")
        #expect(log.summary(now: now) == "Weight 86.0 kg, -1.1 kg in 4 days · target 78.0 kg")
        #expect(WeightLog(history: nil, queued: []).sparkline(days: 30, now: now) == nil)
    }

    @Test("the plot: sent solid, queued dotted from the last sent one, the target and the last value labelled; fewer than two days draw nothing")
    func plot() {
        let queued = PendingOperation(kind: .updateWeight, weightKg: 85.0, createdAt: Date(timeIntervalSince1970: 20785 * 86400 + 3600))
        let lines = WeightLog(history: Self.history, queued: [queued]).plot(width: 30, height: 6, colours: false)
        #expect(lines.count == 8)
        #expect(lines.contains { $0.hasSuffix("85.0 kg (queued)") })
        #expect(lines.contains { $0.hasSuffix("target 78.0 kg") })
        #expect(lines.last?.contains("2026-11-20") == true && lines.last?.contains("2026-11-28") == true, "ISO dates on the axis: \(lines.last ?? "")")
        let one = WeightHistory(targetWeight: nil, weights: [.init(date: "2026-11-24", weight: 86)])
        #expect(WeightLog(history: one, queued: []).plot(width: 30, height: 6, colours: false).isEmpty)
    }

    @Test("the store caches the weights with the plan; when they cannot be fetched, the cached ones stay")
    func cachedWithThePlan() async throws {
        let setup = NutritionSetup()
        setup.api.set { $0.history = Self.history }
        let first = try await setup.repository().refresh()
        #expect(first.weights == Self.history)
        #expect(NutritionCache(directory: setup.cacheDirectory).load()?.weights == Self.history)
        setup.api.set { $0.weightsFailure = NetworkError.http(status: 500, method: "GET", path: "/auth/profile/weights", message: nil, retryAfter: nil) }
        let second = try await setup.repository().refresh()
        #expect(second.weights == Self.history, "a failed weights request keeps the cached ones, and the plan still refreshes")
    }
}
