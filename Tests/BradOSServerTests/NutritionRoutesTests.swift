@testable import BradOSServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@Suite("Reference server: the nutrition plan API")
struct NutritionRoutesTests {
    static func json(_ buffer: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]) ?? [:]
    }

    func token(_ client: some TestClientProtocol, _ user: String) async throws -> String {
        try await client.execute(uri: "/api/auth/login", method: .post, body: ByteBuffer(string: #"{"username":"\#(user)","password":"\#(user)"}"#)) {
            Self.json($0.body)["accessToken"] as? String ?? ""
        }
    }

    @Test("Mifflin–St Jeor, activity multiplier, goal rate, protein and water per kg, timeline")
    func science() {
        let profile = NutritionScience.Profile(currentWeight: 86, targetWeight: 78, goal: "lose_weight", activityLevel: "moderately_active",
                                          height: 178, age: 34, sex: "male", onboardingCompleted: true, updatedAt: Date())
        let targets = NutritionScience.targets(profile, now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(targets.bmr == 1808) // 10·86 + 6.25·178 − 5·34 + 5 = 1807.5
        #expect(targets.tdee == 2802) // × 1.55
        #expect(targets.calorieTarget == 2252) // − 0.5 kg/week × 7700 / 7
        #expect(targets.proteinTarget == 172 && targets.waterTarget == 3000)
        #expect(targets.weeklyRate == -0.5 && targets.estimatedWeeks == 16)
        var female = profile
        female.sex = "female"
        female.activityLevel = "sedentary"
        female.goal = "maintain"
        let maintain = NutritionScience.targets(female, now: Date())
        #expect(maintain.bmr == 1642 && maintain.calorieTarget == maintain.tdee && maintain.estimatedWeeks == nil)
        let why = NutritionScience.whyItWorks(profile, targets)
        #expect(why.calorieTarget.explanation.contains("2252") && why.calorieTarget.science.contains("1808"))
    }

    @Test("generate: kept 7 days unless forced or the profile changed; previous targets reported; onboarding and validation errors")
    func generate() async throws {
        let app = Application(router: try ReferenceServer(configuration: ServerConfiguration(port: 0)).buildRouter())
        try await app.test(.router) { client in
            let demo = try await token(client, "demo")
            let auth: HTTPFields = [.authorization: "Bearer \(demo)", .contentType: "application/json"]
            func generate(_ force: Bool) async throws -> [String: Any] {
                try await client.execute(uri: "/v1/plans/generate", method: .post, headers: auth, body: ByteBuffer(string: #"{"forceRecompute":\#(force)}"#)) {
                    #expect($0.status == .ok)
                    return Self.json($0.body)["data"] as? [String: Any] ?? [:]
                }
            }
            let first = try await generate(false)
            #expect(first["recomputed"] as? Bool == true)
            let again = try await generate(false)
            #expect(again["recomputed"] as? Bool == false && again["previousTargets"] == nil)
            let forced = try await generate(true)
            #expect(forced["recomputed"] as? Bool == true && (forced["previousTargets"] as? [String: Any])?["calorieTarget"] as? Int == 2252)
            try await client.execute(uri: "/auth/profile", method: .put, headers: auth, body: ByteBuffer(string: #"{"currentWeight":80}"#)) {
                #expect($0.status == .ok)
            }
            let changed = try await generate(false)
            #expect(changed["recomputed"] as? Bool == true)
            #expect((changed["targets"] as? [String: Any])?["proteinTarget"] as? Int == 160)
            try await client.execute(uri: "/auth/profile", method: .put, headers: auth, body: ByteBuffer(string: #"{"currentWeight":301}"#)) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/v1/plans/generate", method: .post, body: ByteBuffer(string: "{}")) { #expect($0.status == .unauthorized) }
            let alice = try await token(client, "alice")
            try await client.execute(uri: "/v1/plans/generate", method: .post, headers: [.authorization: "Bearer \(alice)"], body: ByteBuffer(string: "{}")) {
                #expect($0.status == .badRequest)
                #expect(String(buffer: $0.body).contains("onboarding"))
            }
        }
    }

    @Test("weights: eight weeks seeded for the demo, oldest first; a PUT adds today's, or the day it was logged; a bad day is refused")
    func weights() async throws {
        let app = Application(router: try ReferenceServer(configuration: ServerConfiguration(port: 0)).buildRouter())
        try await app.test(.router) { client in
            let demo = try await token(client, "demo")
            let auth: HTTPFields = [.authorization: "Bearer \(demo)", .contentType: "application/json"]
            func weights() async throws -> (target: Double?, entries: [(String, Double)]) {
                try await client.execute(uri: "/auth/profile/weights", method: .get, headers: auth) {
                    #expect($0.status == .ok)
                    let data = Self.json($0.body)["data"] as? [String: Any] ?? [:]
                    let entries = (data["weights"] as? [[String: Any]] ?? []).map { ($0["date"] as? String ?? "", $0["weight"] as? Double ?? 0) }
                    return (data["targetWeight"] as? Double, entries)
                }
            }
            let seeded = try await weights()
            #expect(seeded.target == 78 && seeded.entries.count >= 40 && seeded.entries.last?.1 == 86)
            #expect(seeded.entries.map(\.0) == seeded.entries.map(\.0).sorted(), "oldest first")
            let logged = try #require(seeded.entries.first?.0)
            try await client.execute(uri: "/auth/profile", method: .put, headers: auth,
                                     body: ByteBuffer(string: #"{"currentWeight":85.5,"currentWeightDate":"\#(logged)"}"#)) { #expect($0.status == .ok) }
            let changed = try await weights()
            #expect(changed.entries.first?.0 == logged && changed.entries.first?.1 == 85.5, "recorded on the day it was logged")
            try await client.execute(uri: "/auth/profile", method: .put, headers: auth, body: ByteBuffer(string: #"{"currentWeight":85.1}"#)) {
                #expect($0.status == .ok)
            }
            #expect(try await weights().entries.last?.1 == 85.1, "today's")
            for bad in ["2026-02-31", "yesterday", "1999-01-01"] {
                try await client.execute(uri: "/auth/profile", method: .put, headers: auth,
                                         body: ByteBuffer(string: #"{"currentWeight":85,"currentWeightDate":"\#(bad)"}"#)) {
                    #expect($0.status == .badRequest, "\(bad)")
                }
            }
            try await client.execute(uri: "/auth/profile/weights", method: .get) { #expect($0.status == .unauthorized) }
        }
    }

    @Test("target weight, goal and activity level: each validated, each changing the next plan; the plan names its user")
    func planInputs() async throws {
        let app = Application(router: try ReferenceServer(configuration: ServerConfiguration(port: 0)).buildRouter())
        try await app.test(.router) { client in
            let demo = try await token(client, "demo")
            let auth: HTTPFields = [.authorization: "Bearer \(demo)", .contentType: "application/json"]
            func generate() async throws -> [String: Any] {
                try await client.execute(uri: "/v1/plans/generate", method: .post, headers: auth, body: ByteBuffer(string: #"{"forceRecompute":false}"#)) {
                    #expect($0.status == .ok)
                    return Self.json($0.body)["data"] as? [String: Any] ?? [:]
                }
            }
            func put(_ body: String) async throws -> (HTTPResponse.Status, String) {
                try await client.execute(uri: "/auth/profile", method: .put, headers: auth, body: ByteBuffer(string: body)) { ($0.status, String(buffer: $0.body)) }
            }
            let first = try await generate()
            #expect((first["plan"] as? [String: Any])?["userId"] as? String == DemoSeed.users[0].id)
            for (body, field) in [(#"{"targetWeight":20}"#, "targetWeight"), (#"{"goal":"bulk"}"#, "goal"), (#"{"activityLevel":"lazy"}"#, "activityLevel")] {
                let (status, text) = try await put(body)
                #expect(status == .badRequest && text.contains(field), "\(body): \(text)")
            }
            #expect(try await put(#"{"activityLevel":"very_active"}"#).0 == .ok)
            let active = try await generate()
            #expect(active["recomputed"] as? Bool == true, "a changed profile makes a new plan")
            #expect((active["targets"] as? [String: Any])?["tdee"] as? Int == 3118) // 1807.5 × 1.725 = 3117.9
            #expect(try await put(#"{"goal":"gain_muscle","targetWeight":90}"#).0 == .ok)
            let gaining = try #require(try await generate()["targets"] as? [String: Any])
            #expect(gaining["weeklyRate"] as? Double == 0.25 && (gaining["calorieTarget"] as? Int ?? 0) > 3118)
            #expect(try await put(#"{"goal":"maintain"}"#).0 == .ok)
            let holding = try #require(try await generate()["targets"] as? [String: Any])
            #expect(holding["weeklyRate"] as? Double == 0 && holding["calorieTarget"] as? Int == holding["tdee"] as? Int)
        }
    }

    @Test("plan generation is rate limited per client: past the limit, 429 with the Retry-After that lets the next one through")
    func rateLimited() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.planRateLimit = 2
        configuration.planRateWindow = 60
        configuration.planRateClock = { Date(timeIntervalSince1970: 1_800_000_000) }  // however slow the machine, no time passes
        let app = Application(router: try ReferenceServer(configuration: configuration).buildRouter())
        try await app.test(.router) { client in
            let demo = try await token(client, "demo")
            let alice = try await token(client, "alice")
            func generate(_ token: String) async throws -> (HTTPResponse.Status, String?, String) {
                try await client.execute(uri: "/v1/plans/generate", method: .post, headers: [.authorization: "Bearer \(token)"], body: ByteBuffer(string: "{}")) {
                    ($0.status, $0.headers[.retryAfter], String(buffer: $0.body))
                }
            }
            #expect(try await generate(demo).0 == .ok)
            #expect(try await generate(demo).0 == .ok)
            let limited = try await generate(demo)
            #expect(limited.0 == .tooManyRequests && limited.2.contains("at most 2 in 60 s"))
            let wait = try #require(limited.1.flatMap(Int.init))
            #expect(wait == 60)
            // Another client has its own allowance (alice is not onboarded: 400, not 429).
            #expect(try await generate(alice).0 == .badRequest)
        }
    }

    @Test("the limiter's window slides: a refused request does not count, and the wait it names is exact")
    func slidingWindow() {
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let limiter = RateLimiter(limit: 20, window: 60) { clock.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { clock.withLock { $0 = $0.addingTimeInterval(seconds) } }
        for _ in 0..<10 { #expect(limiter.admit("a") == nil) }
        advance(30)
        for _ in 0..<10 { #expect(limiter.admit("a") == nil) }
        #expect(limiter.admit("a") == 30, "the first ten leave the window in 30 s")
        #expect(limiter.admit("b") == nil, "per client")
        advance(29.5)
        #expect(limiter.admit("a") == 1)
        advance(0.5)
        #expect(limiter.admit("a") == nil)
        #expect(RateLimiter(limit: 0, window: 60).admit("a") == nil, "0: no limit")
    }
}
