import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
@testable import Nutrition
import TestSupport
import Testing

/// Spec §8.5: `archivedPlans` and `comparePlans`, as kept plans and `plan diff`.
@Suite("Kept plans: every plan received, bounded, compared")
struct KeptNutritionPlansTests {
    @Test("each new plan received is kept once, oldest first; the same plan answered again adds nothing")
    func keptOnce() async throws {
        let plans = [Fixtures.plan(id: 1), Fixtures.plan(id: 1, recomputed: false), Fixtures.plan(id: 2, targets: Fixtures.targets(calories: 2150, protein: 160))]
        let setup = NutritionSetup(api: FakeNutritionAPI(plans: plans))
        _ = try await setup.repository().refresh()
        setup.clock.advance(by: .seconds(60))
        _ = try await setup.repository().refresh()
        setup.clock.advance(by: .seconds(60))
        _ = try await setup.repository().recompute()
        let kept = KeptNutritionPlans(directory: setup.cacheDirectory).all()
        #expect(kept.map(\.plan.plan.id) == [1, 2])
        #expect(kept.map(\.receivedAt) == [Fixtures.start, Fixtures.start.addingTimeInterval(120)])
        // In the domain's cache folder: `cache export` carries it and `auth logout` erases it.
        #expect(FileManager.default.fileExists(atPath: setup.cacheDirectory.appendingPathComponent("kept-plans.json").path))
    }

    @Test("the cached plan of a brados from before kept plans is kept first")
    func seededFromTheCache() async throws {
        let setup = NutritionSetup(api: FakeNutritionAPI(plans: [Fixtures.plan(id: 7), Fixtures.plan(id: 8, targets: Fixtures.targets(calories: 2000))]))
        try NutritionCache(directory: setup.cacheDirectory).save(CachedNutritionPlan(cachedAt: Fixtures.start.addingTimeInterval(-86400), data: Fixtures.plan(id: 6)))
        setup.clock.advance(by: .seconds(7200))
        _ = try await setup.repository().current()
        #expect(KeptNutritionPlans(directory: setup.cacheDirectory).all().map(\.plan.plan.id) == [6, 7])
    }

    @Test("bounded: past the limit the oldest go first")
    func bounded() throws {
        let dir = TemporaryDirectory()
        let kept = KeptNutritionPlans(directory: dir.url, limit: 3)
        for id in 1...5 { try kept.keep(Fixtures.plan(id: id), at: Fixtures.start.addingTimeInterval(Double(id))) }
        #expect(kept.all().map(\.plan.plan.id) == [3, 4, 5])
        #expect(KeptNutritionPlans.limit == 100)
    }

    @Test("ids of the profile's own: two servers' plan 1 are plans 1 and 3; a file from before ids gets them in order; ids are never reused")
    func ownIDs() throws {
        let dir = TemporaryDirectory()
        let kept = KeptNutritionPlans(directory: dir.url, limit: 3)
        try kept.keep(Fixtures.plan(id: 1), at: Fixtures.start)
        try kept.keep(Fixtures.plan(id: 2, targets: Fixtures.targets(calories: 2000)), at: Fixtures.start.addingTimeInterval(60))
        try kept.keep(Fixtures.plan(id: 1, targets: Fixtures.targets(calories: 1900)), at: Fixtures.start.addingTimeInterval(120))
        #expect(kept.all().map(\.id) == [1, 2, 3])
        #expect(kept.all().map(\.plan.plan.id) == [1, 2, 1])
        let pair = try kept.pair(from: 1, to: 3)
        #expect(pair.from.plan.targets.calorieTarget == 2252 && pair.to.plan.targets.calorieTarget == 1900)
        // Past the limit the oldest goes, and its id is not given again.
        try kept.keep(Fixtures.plan(id: 9, targets: Fixtures.targets(calories: 1800)), at: Fixtures.start.addingTimeInterval(180))
        #expect(kept.all().map(\.id) == [2, 3, 4])
        #expect(throws: NutritionError.planNotKept(id: 1, kept: [2, 3, 4])) { try kept.pair(from: 1, to: nil) }

        // A file an earlier brados wrote: no ids; read with ids in order, and the next plan after them.
        let legacy = TemporaryDirectory()
        let plans = [Fixtures.plan(id: 5), Fixtures.plan(id: 5, targets: Fixtures.targets(calories: 2100))]
        let json = try JSONCoding.encode(["formatVersion": JSONValue.number(1), "plans": .array(try plans.enumerated().map { index, plan in
            .object(["receivedAt": .string(JSONCoding.string(from: Fixtures.start.addingTimeInterval(Double(index)))),
                     "plan": try JSONCoding.decode(JSONValue.self, from: JSONCoding.encode(plan))])
        })])
        let old = KeptNutritionPlans(directory: legacy.url)
        try json.write(to: old.url)
        #expect(old.all().map(\.id) == [1, 2])
        try old.keep(Fixtures.plan(id: 6, targets: Fixtures.targets(calories: 1700)), at: Fixtures.start.addingTimeInterval(9))
        #expect(old.all().map(\.id) == [1, 2, 3])
    }

    @Test("a kept-plans file that does not decode reads as empty and is replaced by the next plan")
    func corrupt() throws {
        let dir = TemporaryDirectory()
        let kept = KeptNutritionPlans(directory: dir.url)
        try Data("{\"plans\": [tru".utf8).write(to: kept.url)
        #expect(kept.all().isEmpty)
        try kept.keep(Fixtures.plan(id: 4), at: Fixtures.start)
        #expect(kept.all().map(\.plan.plan.id) == [4])
    }

    @Test("diff: the last two by default, or by id; the changes in calories, protein, water and dates")
    func compared() throws {
        let dir = TemporaryDirectory()
        let kept = KeptNutritionPlans(directory: dir.url)
        var later = Fixtures.plan(id: 3, targets: Fixtures.targets(calories: 2150, protein: 160, weeks: 14))
        later.plan.startDate = Fixtures.start.addingTimeInterval(7 * 86400)
        later.plan.endDate = Fixtures.start.addingTimeInterval(14 * 86400)
        try kept.keep(Fixtures.plan(id: 1), at: Fixtures.start)
        try kept.keep(Fixtures.plan(id: 2, targets: Fixtures.targets(calories: 2300)), at: Fixtures.start.addingTimeInterval(60))
        try kept.keep(later, at: Fixtures.start.addingTimeInterval(120))
        let last = try kept.pair(from: nil, to: nil)
        #expect(last.from.plan.plan.id == 2 && last.to.plan.plan.id == 3)
        let chosen = try kept.pair(from: 1, to: nil)
        let comparison = NutritionPlanComparison(from: chosen.from, to: chosen.to)
        #expect(comparison.calorieTarget == .init(from: 2252, to: 2150))
        #expect(comparison.proteinTarget == .init(from: 172, to: 160))
        #expect(comparison.waterTarget == .init(from: 3000, to: 3000))
        #expect(comparison.estimatedWeeks == .init(from: 16, to: 14))
        #expect(comparison.startDate == .init(from: Fixtures.start, to: later.plan.startDate) && comparison.targetsChanged)

        let io = CapturingIO(environment: [:])
        try NutritionRenderer(output: Output(io: io, format: .human)).comparison(comparison)
        #expect(io.stdout.contains("Plan 1 → plan 3"))
        #expect(io.stdout.contains("2252 → 2150 kcal") && io.stdout.contains("-102"))
        #expect(io.stdout.contains("172 → 160 g") && io.stdout.contains("-12"))
        #expect(io.stdout.contains("3000 → 3000 ml") && io.stdout.contains("same"))
        let json = CapturingIO(environment: [:])
        try NutritionRenderer(output: Output(io: json, format: .json)).comparison(comparison)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((document["calorieTarget"] as? [String: Any])?["to"] as? Int == 2150)
        #expect((document["from"] as? [String: Any])?["id"] as? Int == 1)
    }

    @Test("diff with fewer than two plans, or an id not kept, says so and what to do (exit 3)")
    func diffErrors() throws {
        let dir = TemporaryDirectory()
        let kept = KeptNutritionPlans(directory: dir.url)
        #expect(throws: NutritionError.tooFewPlansKept(count: 0)) { try kept.pair(from: nil, to: nil) }
        try kept.keep(Fixtures.plan(id: 1), at: Fixtures.start)
        #expect(throws: NutritionError.tooFewPlansKept(count: 1)) { try kept.pair(from: nil, to: nil) }
        try kept.keep(Fixtures.plan(id: 2, targets: Fixtures.targets(calories: 2000)), at: Fixtures.start)
        let error = #expect(throws: NutritionError.self) { try kept.pair(from: 9, to: 2) }
        #expect(error == .planNotKept(id: 9, kept: [1, 2]))
        #expect(error?.summary == "No plan 9 is kept here (kept: 1, 2).")
        #expect(error?.recovery?.contains("brados plan history --plans") == true)
        #expect(error.map { ExitStatus.code(for: $0) } == 3)
        #expect(NutritionError.tooFewPlansKept(count: 1).recovery?.contains("brados plan recompute") == true)
    }

    @Test("history --plans: newest first with ids; --json oldest first with the bound")
    func listed() throws {
        let plans = [KeptNutritionPlan(receivedAt: Fixtures.start, plan: Fixtures.plan(id: 1)),
                     KeptNutritionPlan(receivedAt: Fixtures.start.addingTimeInterval(3600), plan: Fixtures.plan(id: 2, targets: Fixtures.targets(calories: 2150)))]
        let io = CapturingIO(environment: [:])
        try NutritionRenderer(output: Output(io: io, format: .human)).keptPlans(plans, now: Fixtures.start.addingTimeInterval(7200))
        #expect(io.stdout.contains("2 plans kept"))
        let lines = io.stdout.split(separator: "\n")
        #expect(lines.firstIndex { $0.contains("2150") }! < lines.firstIndex { $0.contains("2252") }!)
        let json = CapturingIO(environment: [:])
        try NutritionRenderer(output: Output(io: json, format: .json)).keptPlans(plans, now: Fixtures.start)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((document["plans"] as? [[String: Any]])?.compactMap { ($0["plan"] as? [String: Any]).flatMap { ($0["plan"] as? [String: Any])?["id"] as? Int } } == [1, 2])
        #expect(document["limit"] as? Int == 100)
    }
}

/// The spec's error mapping (§6.3): 503 is maintenance and not retried; stale data; `Plan.userId`.
@Suite("Plan errors and fields as the spec maps them")
struct NutritionSpecMappingTests {
    static let server = URL(string: "http://127.0.0.1:9")!

    func client(_ transport: StubTransport, clock: ManualClock) -> NutritionRESTClient {
        NutritionRESTClient(client: APIClient(service: .nutrition, baseURL: Self.server, transport: transport, authenticator: nil,
                                              retrier: Retrier(clock: clock, random: { 0.5 })))
    }

    @Test("503 is maintenance, asked once: never retried, and not retryable")
    func maintenanceNotRetried() async throws {
        let clock = ManualClock()
        let transport = StubTransport { _, _ in .json("{}", status: 503) }
        let error = await #expect(throws: NutritionError.self) { try await client(transport, clock: clock).generate(forceRecompute: true) }
        #expect(error == .maintenance && error?.isRetryable == false)
        #expect(transport.requests.count == 1 && clock.sleeps.isEmpty)
        // Other 5xx still are.
        let failing = StubTransport { _, _ in .json("{}", status: 502) }
        _ = await #expect(throws: NetworkError.self) { try await client(failing, clock: ManualClock()).generate(forceRecompute: true) }
        #expect(failing.requests.count == 4)
    }

    @Test("staleData: a cached plan older than the service's 7-day window is shown, and said to be")
    func staleData() throws {
        #expect(NutritionRepository.staleness(of: .cache(age: 6 * 86400)) == nil)
        #expect(NutritionRepository.staleness(of: .network) == nil)
        let stale = try #require(NutritionRepository.staleness(of: .cache(age: 9 * 86400, stale: true, reason: "offline mode")))
        #expect(stale == .staleData(age: 9 * 86400))
        #expect(stale.summary.contains("9 days old") && stale.summary.contains("7-day window"), "\(stale.summary)")
        #expect(stale.recovery?.contains("brados plan refresh") == true)
        let io = CapturingIO(environment: [:])
        let result = NutritionPlanResult(data: Fixtures.plan(), source: .cache(age: 9 * 86400, stale: true, reason: "offline mode"), change: nil)
        try NutritionRenderer(output: Output(io: io, format: .human)).render(result, view: .summary)
        #expect(io.stderr.contains("7-day window") && io.stdout.contains("2252 kcal"))
    }

    @Test("Plan.userId is kept: a number as the spec types it, or text, through the cache and --json")
    func userIdKept() throws {
        func info(_ userId: String) throws -> NutritionPlanInfo {
            try JSONCoding.decode(NutritionPlanInfo.self, from: Data(#"{"id":1,"userId":\#(userId),"name":"W","startDate":"2026-11-21T00:00:00Z","endDate":"2026-11-28T00:00:00Z"}"#.utf8))
        }
        #expect(try info("42").userId == "42")
        #expect(try info(#""8f5c2a64""#).userId == "8f5c2a64")
        #expect(try info("null").userId == nil)
        let dir = TemporaryDirectory()
        var plan = Fixtures.plan()
        plan.plan.userId = "8f5c2a64"
        try NutritionCache(directory: dir.url).save(CachedNutritionPlan(cachedAt: Fixtures.start, data: plan))
        #expect(NutritionCache(directory: dir.url).load()?.data.plan.userId == "8f5c2a64")
        let io = CapturingIO(environment: [:])
        try NutritionRenderer(output: Output(io: io, format: .json)).render(NutritionPlanResult(data: plan, source: .network, change: nil), view: .summary)
        #expect(io.stdout.contains(#""userId":"8f5c2a64""#) || io.stdout.contains(#""userId" : "8f5c2a64""#))
    }
}

@Suite("Kept plans travel with the cache")
struct KeptNutritionPlansPluginTests {
    @Test("cache export lists kept-plans.json (never its lock); clearing the domain (auth logout) erases it")
    func exportedAndErased() throws {
        let dir = TemporaryDirectory()
        let profile = Paths.resolve(environment: ["BRADOS_HOME": dir.url.path]).profile(.default)
        let kept = KeptNutritionPlans(directory: NutritionPlugin.cacheDirectory(profile))
        try kept.keep(Fixtures.plan(id: 1), at: Fixtures.start)
        let plugin = NutritionPlugin()
        let paths = try plugin.exportFiles(in: profile, staging: dir.url.appendingPathComponent("staging")).map(\.archivePath)
        #expect(paths.contains("cache/plan/kept-plans.json"), "\(paths)")
        #expect(!paths.contains { $0.hasSuffix(".lock") })
        try plugin.clear(in: profile)
        #expect(kept.all().isEmpty && !FileManager.default.fileExists(atPath: kept.url.path))
    }
}
