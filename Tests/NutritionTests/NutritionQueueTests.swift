import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation
@testable import Nutrition
import TestSupport
import Testing

@Suite("Plan offline queue: durable, ordered, replayed once")
struct NutritionQueueTests {
    @Test("offline, a weight is queued before anything is sent, and survives into the next process")
    func queuedOffline() async throws {
        let setup = NutritionSetup()
        let (operation, report) = try await setup.repository(offline: true).updateWeight(84.5)
        #expect(report == nil)
        #expect(setup.api.calls.isEmpty)
        let queued = try PendingQueue(url: setup.queueURL).all()
        #expect(queued == [operation])
        #expect(queued[0].weightKg == 84.5 && queued[0].kind == .updateWeight)
        let offline = await #expect(throws: NetworkError.self) { try await setup.repository(offline: true).sync() }
        guard case .offlineMode? = offline else { Issue.record("\(String(describing: offline))"); return }
        #expect(try PendingQueue(url: setup.queueURL).all().count == 1)
    }

    @Test("a plan the person's own change brought stays theirs: fetched after a failed recompute, or fetched again unchanged; the service's next change is not")
    func ownChangeKept() async throws {
        let setup = NutritionSetup()
        _ = try await setup.repository().refresh()
        let served = Fixtures.plan(targets: Fixtures.targets(calories: 2200, protein: 170))
        let afterWeight = Fixtures.plan(targets: Fixtures.targets(calories: 2180, protein: 169))
        let serviceChange = Fixtures.plan(targets: Fixtures.targets(calories: 1900, protein: 169))
        setup.api.set { $0.plans = [served, served] }
        _ = try await setup.repository().refresh()
        #expect(setup.repository().cache.load()?.changedHere == nil, "the service's plan")
        // The weight is sent; its recompute fails: the plan fetched next answers the person's change.
        setup.api.set { $0.generateFailure = NetworkError.http(status: 429, method: "POST", path: "/v1/plans/generate", message: nil, retryAfter: nil) }
        _ = try await setup.repository(offline: true).updateWeight(84)
        let report = try await setup.repository().sync()
        #expect(report.recomputeError != nil && setup.repository().cache.load()?.outdatedAt != nil)
        setup.api.set { $0.generateFailure = nil; $0.plans = [afterWeight, afterWeight, serviceChange] }
        _ = try await setup.repository().refresh()
        #expect(setup.repository().cache.load()?.changedHere == true, "the first plan after the person's own change is theirs")
        _ = try await setup.repository().refresh()
        #expect(setup.repository().cache.load()?.changedHere == true, "the same targets fetched again stay theirs")
        _ = try await setup.repository().refresh()
        #expect(setup.repository().cache.load()?.changedHere == nil, "the service's own change is news")
    }

    @Test("weights outside 30-300 kg are refused before anything is queued")
    func weightValidated() async throws {
        let setup = NutritionSetup()
        for weight in [29.9, 300.1, .nan, .infinity] {
            let error = await #expect(throws: NutritionError.self) { try await setup.repository().updateWeight(weight) }
            #expect(error?.kind == .usage)
        }
        #expect(try PendingQueue(url: setup.queueURL).all().isEmpty)
    }

    @Test("sync replays in order, removes each operation once confirmed, then recomputes once")
    func replayInOrder() async throws {
        let setup = NutritionSetup()
        for weight in [86.0, 85.0, 84.0] { _ = try await setup.repository(offline: true).updateWeight(weight) }
        let report = try await setup.repository().sync()
        #expect(setup.api.weights == [86, 85, 84])
        #expect(report.applied.map(\.weightKg) == [86, 85, 84])
        #expect(report.remaining.isEmpty && report.stoppedBy == nil)
        #expect(setup.api.calls == ["update", "update", "update", "generate(force)"])
        #expect(report.plan?.data == Fixtures.plan())
        #expect(!FileManager.default.fileExists(atPath: setup.queueURL.path))
    }

    @Test("a retryable failure stops the replay and keeps the rest in order; a refusal is dropped and reported")
    func stopsAndDrops() async throws {
        let setup = NutritionSetup()
        for weight in [86.0, 85.0, 84.0, 83.0] { _ = try await setup.repository(offline: true).updateWeight(weight) }
        setup.api.set {
            $0.updateFailures[85] = NetworkError.http(status: 400, method: "PUT", path: "/auth/profile", message: "currentWeight must be 30-300 kg.", retryAfter: nil)
            $0.updateFailures[84] = NetworkError.http(status: 503, method: "PUT", path: "/auth/profile", message: nil, retryAfter: nil)
        }
        let report = try await setup.repository().sync()
        #expect(report.applied.map(\.weightKg) == [86])
        #expect(report.dropped.map(\.operation.weightKg) == [85])
        #expect(report.stoppedBy as? NutritionError == .maintenance)
        #expect(report.remaining.map(\.weightKg) == [84, 83])
        #expect(try PendingQueue(url: setup.queueURL).all().map(\.weightKg) == [84, 83])
        // The applied change still recomputes the plan.
        #expect(setup.api.calls.last == "generate(force)")
        setup.api.set { $0.updateFailures = [:] }
        let second = try await setup.repository().sync()
        #expect(second.applied.map(\.weightKg) == [84, 83])
        #expect(setup.api.weights == [86, 84, 83])
    }

    @Test("only a definite refusal drops a change: an answer that does not decode keeps it; a 403 drops it")
    func dropOnlyRefusals() async throws {
        let setup = NutritionSetup()
        for weight in [81.0, 82.0] { _ = try await setup.repository(offline: true).updateWeight(weight) }
        setup.api.set {
            $0.updateFailures[81] = NetworkError.invalidResponse(path: "/auth/profile", detail: "not valid JSON")
        }
        let first = try await setup.repository().sync()
        #expect(first.dropped.isEmpty && first.remaining.map(\.weightKg) == [81, 82])
        guard case .invalidResponse? = first.stoppedBy as? NetworkError else { Issue.record("\(String(describing: first.stoppedBy))"); return }
        setup.api.set {
            $0.updateFailures[81] = NetworkError.http(status: 403, method: "PUT", path: "/auth/profile", message: nil, retryAfter: nil)
        }
        let second = try await setup.repository().sync()
        #expect(second.dropped.map(\.operation.weightKg) == [81])
        #expect(second.applied.map(\.weightKg) == [82] && second.remaining.isEmpty)
    }

    @Test("a recompute that fails after the changes were sent expires the cached plan but keeps it as the fallback")
    func failedRecomputeKeepsFallback() async throws {
        let setup = NutritionSetup()
        _ = try await setup.repository().current()
        _ = try await setup.repository(offline: true).updateWeight(80)
        setup.api.set { $0.generateFailure = NutritionError.maintenance }
        let report = try await setup.repository().sync()
        #expect(report.applied.count == 1 && report.recomputeError as? NutritionError == .maintenance)
        let shown = try await setup.repository().current()
        #expect(shown.source.kind == .cache && shown.source.stale && shown.source.reason != nil, "expected the cached plan as a fallback, got \(shown.source)")
        #expect(shown.data == Fixtures.plan())
        // Out of date is its own mark: the plan keeps its real save time (not year 1, which
        // read "saved 739947 days ago" and "older than the service's 7-day window").
        let offline = try await setup.repository(offline: true).current()
        #expect(offline.source.stale, "\(offline.source)")
        #expect((offline.source.age ?? .infinity) < 60, "\(offline.source)")
        #expect(!offline.source.origin.contains("days ago"), "\(offline.source.origin)")
        #expect(NutritionRepository.staleness(of: offline.source) == nil)
        // A plan the service answers replaces it and is fresh again.
        setup.api.set { $0.generateFailure = nil }
        _ = try await setup.repository().refresh()
        let fresh = try await setup.repository(offline: true).current()
        #expect(!fresh.source.stale, "\(fresh.source)")
    }

    @Test("an expired session stops the replay without dropping anything")
    func authFailureKeepsQueue() async throws {
        let setup = NutritionSetup()
        _ = try await setup.repository(offline: true).updateWeight(80)
        setup.api.set { $0.updateFailures[80] = AuthError.sessionExpired(profile: "default") }
        let report = try await setup.repository().sync()
        #expect(report.remaining.count == 1 && report.dropped.isEmpty)
    }

    @Test("two syncs at once never send the same operation")
    func concurrentSyncs() async throws {
        let setup = NutritionSetup()
        let weights = (0..<12).map { 80.0 + Double($0) / 4 }
        for weight in weights { _ = try await setup.repository(offline: true).updateWeight(weight) }
        let other = FakeNutritionAPI()
        async let first = setup.repository().sync()
        async let second = setup.repository(api: other).sync()
        let reports = try await [first, second]
        let sent = setup.api.weights + other.weights
        #expect(sent.sorted() == weights)
        #expect(Set(sent).count == weights.count)
        #expect(reports.flatMap(\.applied).count == weights.count)
        #expect(try PendingQueue(url: setup.queueURL).all().isEmpty)
    }

    @Test("a queue file that does not decode is an error and is left as it is")
    func corruptQueueKept() async throws {
        let setup = NutritionSetup()
        try FileSystem.createDirectory(setup.queueURL.deletingLastPathComponent())
        try Data("{\"operations\": [tru".utf8).write(to: setup.queueURL)
        await #expect(throws: StorageError.self) { try await setup.repository(offline: true).updateWeight(80) }
        #expect(throws: StorageError.self) { try PendingQueue(url: setup.queueURL).all() }
        #expect(try Data(contentsOf: setup.queueURL) == Data("{\"operations\": [tru".utf8))
    }
}

@Suite("Plan API: retries, Retry-After, error taxonomy")
struct NutritionRESTTests {
    static let server = URL(string: "http://127.0.0.1:9")!
    static let body = #"{"success":true,"data":{"plan":{"id":1,"name":"Week","description":null,"startDate":"2026-11-21T00:00:00.000Z","endDate":"2026-11-28T00:00:00.000Z","status":"active"},"targets":{"bmr":1808,"tdee":2802,"calorieTarget":2252,"proteinTarget":172,"waterTarget":3000,"weeklyRate":-0.5,"estimatedWeeks":16,"projectedDate":"2027-03-13T00:00:00.000Z"},"whyItWorks":{"calorieTarget":{"title":"a","explanation":"b","science":"c"},"proteinTarget":{"title":"a","explanation":"b","science":"c"},"waterTarget":{"title":"a","explanation":"b","science":"c"},"weeklyRate":{"title":"a","explanation":"b","science":"c"}},"recomputed":true,"previousTargets":null}}"#

    func client(_ transport: StubTransport, clock: ManualClock) -> NutritionRESTClient {
        NutritionRESTClient(client: APIClient(service: .nutrition, baseURL: Self.server, transport: transport, authenticator: nil,
                                         retrier: Retrier(clock: clock, random: { 0.5 })))
    }

    @Test("5xx and network failures: exactly 3 retries with backoff from 1 s (within jitter), then the error")
    func retriesOnServerErrors() async throws {
        let clock = ManualClock()
        let transport = StubTransport { _, _ in .json(#"{"error":"boom"}"#, status: 500) }
        let failure = await #expect(throws: NetworkError.self) { try await client(transport, clock: clock).generate(forceRecompute: false) }
        guard case .http(500, _, _, "boom", _)? = failure else { Issue.record("\(String(describing: failure))"); return }
        #expect(transport.requests.count == 4)
        #expect(clock.sleeps == [.seconds(1), .seconds(2), .seconds(4)])
        let lost = StubTransport { _, index in
            if index < 2 { throw NetworkError.connectionLost(host: "h", reason: "reset") }
            return .json(Self.body)
        }
        let plan = try await client(lost, clock: ManualClock()).generate(forceRecompute: true)
        #expect(plan.targets.calorieTarget == 2252 && lost.requests.count == 3)
        #expect(String(decoding: lost.requests[0].body ?? Data(), as: UTF8.self) == #"{"forceRecompute":true}"#)
    }

    @Test("4xx is never retried; 400 about onboarding and 404 map to their own errors")
    func noRetryOn4xx() async throws {
        let clock = ManualClock()
        let onboarding = StubTransport { _, _ in .json(#"{"error":{"message":"Complete onboarding before generating a plan."}}"#, status: 400) }
        let error = await #expect(throws: NutritionError.self) { try await client(onboarding, clock: clock).generate(forceRecompute: false) }
        guard case .onboardingIncomplete? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(onboarding.requests.count == 1 && clock.sleeps.isEmpty)
        let missing = StubTransport { _, _ in .json(#"{"error":"nope"}"#, status: 404) }
        await #expect(throws: NutritionError.notFound) { try await client(missing, clock: clock).generate(forceRecompute: false) }
        #expect(missing.requests.count == 1)
    }

    @Test("Retry-After is honoured when short, and reported with its time when long")
    func retryAfter() async throws {
        let clock = ManualClock()
        let short = StubTransport { _, index in index == 0 ? .json("{}", status: 429, headers: [("Retry-After", "3")]) : .json(Self.body) }
        _ = try await client(short, clock: clock).generate(forceRecompute: false)
        #expect(clock.sleeps == [.seconds(3)])
        let long = StubTransport { _, _ in .json("{}", status: 429, headers: [("Retry-After", "120")]) }
        let longClock = ManualClock()
        let limited = try #require(await #expect(throws: NetworkError.self) { try await client(long, clock: longClock).generate(forceRecompute: false) })
        #expect(long.requests.count == 1 && longClock.sleeps.isEmpty)
        #expect(limited.retryAfter == .seconds(120) && limited.kind == .rateLimited && ExitStatus.code(for: limited) == 9)
        #expect(limited.recovery == "The server is rate limiting; wait 2 min and try again.")
    }

    @Test("503 is maintenance; success false or the wrong shape is an invalid response")
    func shapes() async throws {
        let clock = ManualClock()
        let maintenance = StubTransport { _, _ in .json("{}", status: 503) }
        await #expect(throws: NutritionError.maintenance) { try await client(maintenance, clock: clock).generate(forceRecompute: false) }
        let unsuccessful = StubTransport { _, _ in .json(#"{"success":false,"error":"no"}"#) }
        let unsuccessfulError = await #expect(throws: NutritionError.self) { try await client(unsuccessful, clock: clock).generate(forceRecompute: false) }
        #expect(unsuccessfulError == .invalidResponse("success was false: no"))
        // The wrong shape is the core's invalid response, worded like every domain's.
        let wrong = StubTransport { _, _ in .json(#"{"success":true,"data":{"plan":42}}"#) }
        let error = await #expect(throws: NetworkError.self) { try await client(wrong, clock: clock).generate(forceRecompute: false) }
        guard case .invalidResponse? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(ExitStatus.code(for: try #require(error)) == 6)
    }

    @Test("every plan error has a message, a recovery, a retryability and an exit code; network failures stay the core's")
    func taxonomy() {
        let all: [NutritionError] = [.notFound, .onboardingIncomplete("x"), .invalidInput("x", fromServer: false), .invalidInput("x", fromServer: true),
                                .invalidResponse("x"), .maintenance, .invalidTargets("x")]
        #expect(all.map { ExitStatus.code(for: $0) } == [3, 7, 64, 7, 6, 6, 8])
        #expect(all.allSatisfy { !$0.summary.isEmpty && $0.recovery != nil })
        #expect(all.filter(\.isRetryable).isEmpty, "maintenance (503) is not retried: the spec's maintenanceMode")
        func http(_ status: Int, _ message: String? = nil) -> NetworkError {
            .http(status: status, method: "POST", path: "/v1/plans/generate", message: message, retryAfter: nil)
        }
        // The service's own meanings of a status; everything else is left to the core.
        #expect(NutritionError.map(http(404)) as? NutritionError == .notFound)
        #expect(NutritionError.map(http(503)) as? NutritionError == .maintenance)
        #expect(NutritionError.map(http(422, "weight")) as? NutritionError == .invalidInput("weight", fromServer: true))
        #expect(NutritionError.map(http(400, "Complete onboarding first")) as? NutritionError == .onboardingIncomplete("Complete onboarding first"))
        for kept: NetworkError in [http(500), http(502), http(429), http(401), http(403), .offlineMode, .timedOut(host: "h"),
                                   .unreachable(host: "h", reason: "refused"), .connectionLost(host: "h", reason: "reset")] {
            #expect(NutritionError.map(kept) is NetworkError, "\(kept)")
        }
        // A refusal drops a queued change; anything that may pass later keeps it.
        #expect([http(400), http(403), http(404), http(409), http(422)].allSatisfy { NutritionError.isRefusal($0) })
        #expect(![http(401), http(408), http(429), http(500), http(503), NetworkError.offlineMode, NetworkError.timedOut(host: "h")]
            .contains { NutritionError.isRefusal($0) })
    }
}
