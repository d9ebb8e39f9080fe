import BradOSCore
import Foundation
@testable import Nutrition
import TestSupport
import Testing

/// `brados plan …` run in process (``CommandHarness``): the commands' own logic, with a fake
/// service and captured output.
@Suite("plan's commands, in process against a fake service")
struct NutritionCommandsTests {
    @Test("show asks the service for the plan and prints its targets, then from the cache offline")
    func show() async throws {
        let harness = try CommandHarness(plugins: [NutritionPlugin()]) { request, _ in
            request.url.path == "/v1/plans/generate" ? .json(NutritionRESTTests.body) : .json("{}", status: 404)
        }
        let shown = try await harness.run(NutritionCommand.Show.parse([]))
        #expect(shown.stdout.contains("2252"), "\(shown.stdout)")
        let asked = harness.requests
        #expect(asked.first == "POST /v1/plans/generate", "\(asked)")
        let offline = try await harness.run(NutritionCommand.Show.parse([]), offline: true)
        #expect(offline.stdout.contains("2252"))
        #expect(harness.requests == asked, "offline asks nothing")
    }

    @Test("weight offline is queued, not lost: pending lists it, and sync sends it in order")
    func queuedWeight() async throws {
        let harness = try CommandHarness(plugins: [NutritionPlugin()]) { request, _ in
            switch (request.method, request.url.path) {
            case ("POST", "/v1/plans/generate"): .json(NutritionRESTTests.body)
            case ("PUT", "/auth/profile"): .json(#"{"success":true,"data":{"currentWeight":84.2}}"#)
            default: .json("{}", status: 404)
            }
        }
        try await harness.run(NutritionCommand.Weight.parse(["84.2"]), offline: true)
        #expect(harness.requests.isEmpty)
        let pending = try await harness.run(NutritionCommand.Pending.parse([]))
        #expect(pending.stdout.contains("84.2"), "\(pending.stdout)")
        try await harness.run(NutritionCommand.Sync.parse([]))
        #expect(harness.requests.first == "PUT /auth/profile", "the weight goes first: \(harness.requests)")
        #expect(harness.requests.contains("POST /v1/plans/generate"), "then the plan is revalidated")
        let empty = try await harness.run(NutritionCommand.Pending.parse([]), json: true)
        #expect(!empty.stdout.contains("84.2"), "\(empty.stdout)")
    }
}
