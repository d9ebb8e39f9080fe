@testable import BradOSServer
import Foundation
import Hummingbird
import HummingbirdTesting
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
}
