import BradOSCore
import BradOSNetworking
import BradOSTerminal
import Foundation
@testable import Nutrition
import TestSupport
import Testing

@Suite("Plan store: TTL cache, recompute, validation, fallback")
struct NutritionRepositoryTests {
    @Test("a fetch caches the plan; within half the TTL the next process answers from disk with no request")
    func cacheWithinTTL() async throws {
        let setup = NutritionSetup()
        let first = try await setup.repository().current()
        #expect(first.source == .network && first.data == Fixtures.plan())
        setup.clock.advance(by: .seconds(1799))
        let second = try await setup.repository().current()
        #expect(second.source == .cache(age: 1799))
        #expect(setup.api.calls == ["generate"])
        // The disk copy is what a new process reads.
        #expect(NutritionCache(directory: setup.cacheDirectory).load()?.data == Fixtures.plan())
    }

    /// An interactive read (a terminal): what was shown first, and what was shown again.
    func interactive(_ repository: NutritionRepository) async throws -> (shown: [NutritionPlanResult], reshown: [NutritionPlanResult], notices: [String]) {
        let recorder = Recorder()
        let notices = Locked<[String]>([])
        let reader = CacheReader(mode: .interactive, offline: repository.offline, now: repository.now, notice: { text in notices.withLock { $0.append(text) } })
        try await reader.show(repository.currentPlan, with: recorder)
        return (recorder.shown.withLock { $0 }, recorder.reshown.withLock { $0 }, notices.withLock { $0 })
    }

    /// The plan's presenter (on a captured terminal), recording what it showed.
    final class Recorder: CachePresenter, Sendable {
        let presenter = NutritionRenderer(output: Output(io: CapturingIO(environment: [:]), format: .human)).presenter(.summary)
        let shown = Locked<[NutritionPlanResult]>([])
        let reshown = Locked<[NutritionPlanResult]>([])
        func render(_ value: NutritionPlanResult, source: DataSource) throws {
            try presenter.render(value, source: source)
            var result = value
            result.source = source
            shown.withLock { $0.append(result) }
        }

        func rerender(old: NutritionPlanResult, new: NutritionPlanResult) throws -> Bool {
            guard try presenter.rerender(old: old, new: new) else { return false }
            reshown.withLock { $0.append(new) }
            return true
        }
    }

    @Test("past half the TTL the cached plan is presented at once, then refreshed before returning")
    func refreshInSecondHalf() async throws {
        let setup = NutritionSetup(api: FakeNutritionAPI(plans: [Fixtures.plan(), Fixtures.plan(id: 2, targets: Fixtures.targets(calories: 2100))]))
        _ = try await setup.repository().current()
        setup.clock.advance(by: .seconds(2000))
        let first = try await interactive(setup.repository())
        #expect(first.shown.map(\.source) == [.cache(age: 2000)])
        #expect(first.reshown.map(\.data.plan.id) == [2])
        #expect(first.reshown.first?.change == NutritionPlanChange(previous: Fixtures.targets(), new: Fixtures.targets(calories: 2100)))
        #expect(setup.api.calls == ["generate", "generate"])
        // Unchanged on refresh: nothing more to show.
        setup.clock.advance(by: .seconds(2000))
        let second = try await interactive(setup.repository())
        #expect(second.shown.count == 1 && second.reshown.isEmpty)
        // A script waits for the refreshed plan: one plan, from the network.
        setup.clock.advance(by: .seconds(2000))
        #expect(try await setup.repository().current().source == .network)
    }

    @Test("a refresh that only flips `recomputed` (the service's stored copy) is not a new plan")
    func recomputedFlagIsNotAChange() async throws {
        let setup = NutritionSetup(api: FakeNutritionAPI(plans: [Fixtures.plan(recomputed: true), Fixtures.plan(recomputed: false)]))
        _ = try await setup.repository().current()
        setup.clock.advance(by: .seconds(2000))
        let read = try await interactive(setup.repository())
        #expect(read.shown.count == 1 && read.reshown.isEmpty && setup.api.calls.count == 2)
    }

    @Test("past the TTL the plan is fetched; a network failure falls back to the cache with a notice")
    func expiredAndFallback() async throws {
        let setup = NutritionSetup()
        _ = try await setup.repository().current()
        setup.clock.advance(by: .seconds(3600))
        let fetched = try await interactive(setup.repository())
        #expect(fetched.shown.map(\.source) == [.network] && fetched.reshown.isEmpty)
        setup.clock.advance(by: .seconds(7200))
        let unreachable = NetworkError.unreachable(host: "127.0.0.1", reason: "connection refused")
        setup.api.set { $0.generateFailure = unreachable }
        let fallback = try await interactive(setup.repository())
        let source = try #require(fallback.shown.first?.source)
        #expect(source.kind == .cache && source.stale && source.age == 7200)
        #expect(source.reason == unreachable.summary)
        #expect(fallback.notices == ["showing cached plan from 2 h ago: \(unreachable.summary)"])
        #expect(fallback.shown.first?.data == Fixtures.plan())
        // Offline (--offline), past the TTL: the cached plan, with no request at all.
        let calls = setup.api.calls.count
        let offline = try await setup.repository(offline: true).current()
        #expect(offline.source.kind == .cache && offline.source.reason == DataSource.offlineReason)
        #expect(setup.api.calls.count == calls)
    }

    @Test("with nothing cached, a failure is the error; refusals never fall back")
    func failuresWithoutCache() async throws {
        let setup = NutritionSetup()
        setup.api.set { $0.generateFailure = NutritionError.maintenance }
        await #expect(throws: NutritionError.maintenance) { try await setup.repository().current() }
        setup.api.set { $0.generateFailure = nil }
        _ = try await setup.repository().current()
        setup.clock.advance(by: .seconds(4000))
        setup.api.set { $0.generateFailure = NutritionError.notFound }
        await #expect(throws: NutritionError.notFound) { try await setup.repository().current() }
    }

    @Test("recompute asks with forceRecompute; refresh bypasses the cache and keeps it when the fetch fails")
    func recomputeAndRefresh() async throws {
        let setup = NutritionSetup()
        _ = try await setup.repository().current()
        _ = try await setup.repository().recompute()
        #expect(setup.api.calls == ["generate", "generate(force)"])
        _ = try await setup.repository().refresh()
        #expect(setup.api.calls.last == "generate")
        setup.api.set { $0.generateFailure = NetworkError.http(status: 500, method: "POST", path: "/v1/plans/generate", message: "boom", retryAfter: nil) }
        await #expect(throws: NetworkError.self) { try await setup.repository().refresh() }
        #expect(NutritionCache(directory: setup.cacheDirectory).load()?.data == Fixtures.plan())
    }

    @Test("targets out of range are an error and never replace the cached plan", arguments: [
        Targets(bmr: 400, tdee: 2802, calorieTarget: 2252, proteinTarget: 172, waterTarget: 3000, weeklyRate: -0.5),
        Targets(bmr: 1808, tdee: 1700, calorieTarget: 2252, proteinTarget: 172, waterTarget: 3000, weeklyRate: -0.5),
        Targets(bmr: 1808, tdee: 2802, calorieTarget: 12000, proteinTarget: 172, waterTarget: 3000, weeklyRate: -0.5),
        Targets(bmr: 1808, tdee: 2802, calorieTarget: 2252, proteinTarget: 10, waterTarget: 3000, weeklyRate: -0.5),
        Targets(bmr: 1808, tdee: 2802, calorieTarget: 2252, proteinTarget: 172, waterTarget: 200, weeklyRate: -0.5),
    ])
    func validation(_ targets: Targets) async throws {
        let setup = NutritionSetup(api: FakeNutritionAPI(plans: [Fixtures.plan(), Fixtures.plan(id: 9, targets: targets)]))
        _ = try await setup.repository().current()
        let error = await #expect(throws: NutritionError.self) { try await setup.repository().recompute() }
        guard case .invalidTargets? = error else { Issue.record("expected invalidTargets, got \(String(describing: error))"); return }
        #expect(error?.kind == .integrity)
        #expect(NutritionCache(directory: setup.cacheDirectory).load()?.data.plan.id == 1)
    }

    @Test("a plan that ends before it starts is invalid")
    func datesValidated() throws {
        var plan = Fixtures.plan()
        plan.plan.endDate = plan.plan.startDate
        #expect(throws: NutritionError.self) { try plan.validate() }
        try Fixtures.plan().validate()
    }

    @Test("significant change: more than 50 kcal or 10 g of protein, with the timeline change")
    func significantChange() {
        let base = Fixtures.targets()
        #expect(NutritionPlanChange.significant(from: base, to: Fixtures.targets(calories: 2302)) == nil)
        #expect(NutritionPlanChange.significant(from: base, to: Fixtures.targets(calories: 2303)) != nil)
        #expect(NutritionPlanChange.significant(from: base, to: Fixtures.targets(calories: 2202)) == nil)
        #expect(NutritionPlanChange.significant(from: base, to: Fixtures.targets(calories: 2202, protein: 182)) == nil)
        #expect(NutritionPlanChange.significant(from: base, to: Fixtures.targets(protein: 183)) != nil)
        #expect(NutritionPlanChange.significant(from: base, to: Fixtures.targets(protein: 161)) != nil)
        #expect(NutritionPlanChange.significant(from: base, to: Fixtures.targets(calories: 2100, weeks: 14))?.timelineWeeks == -2)
        #expect(NutritionPlanChange.significant(from: base, to: Fixtures.targets(calories: 2100))?.timelineWeeks == nil)
    }

    @Test("a slower fetch never replaces a newer plan another process cached meanwhile")
    func newerCachedPlanWins() async throws {
        let setup = NutritionSetup(api: FakeNutritionAPI(plans: [Fixtures.plan(id: 3)]))
        // Another brados saved plan 4 (a recompute) while this one's request for plan 3 was in flight.
        try NutritionCache(directory: setup.cacheDirectory).save(CachedNutritionPlan(cachedAt: Fixtures.start.addingTimeInterval(1), data: Fixtures.plan(id: 4)))
        let slow = setup.repository()
        slow.cache.invalidateMemoryTier()
        _ = try await slow.recompute()
        #expect(NutritionCache(directory: setup.cacheDirectory).load()?.data.plan.id == 4)
        // An equal or newer plan from the service is saved as usual.
        let fresh = NutritionSetup(api: FakeNutritionAPI(plans: [Fixtures.plan(id: 5)]))
        try NutritionCache(directory: fresh.cacheDirectory).save(CachedNutritionPlan(cachedAt: Fixtures.start, data: Fixtures.plan(id: 4)))
        _ = try await fresh.repository().recompute()
        #expect(NutritionCache(directory: fresh.cacheDirectory).load()?.data.plan.id == 5)
        // A higher number cached before the request (a server whose numbering restarted) is replaced.
        let reset = NutritionSetup(api: FakeNutritionAPI(plans: [Fixtures.plan(id: 1)]))
        try NutritionCache(directory: reset.cacheDirectory).save(CachedNutritionPlan(cachedAt: Fixtures.start.addingTimeInterval(-60), data: Fixtures.plan(id: 9)))
        _ = try await reset.repository().recompute()
        #expect(NutritionCache(directory: reset.cacheDirectory).load()?.data.plan.id == 1)
    }

    @Test("the service's previousTargets are preferred for the comparison")
    func previousTargetsFromService() async throws {
        let setup = NutritionSetup(api: FakeNutritionAPI(plans: [Fixtures.plan(targets: Fixtures.targets(calories: 2000), previous: Fixtures.targets(calories: 2400))]))
        let result = try await setup.repository().current()
        #expect(result.change?.previous.calorieTarget == 2400 && result.change?.new.calorieTarget == 2000)
    }
}
