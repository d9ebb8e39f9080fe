import BradOSCore
import Foundation
@testable import MealPlan
import TestSupport
import Testing

/// `brados mealplan …` run in process (``CommandHarness``): the commands' own logic, with a
/// fake service and captured output.
@Suite("mealplan's commands, in process against a fake service")
struct MealPlanCommandsTests {
    @Test("show fetches the latest finalized plan once, then prints it from the cache, offline too; --json carries it")
    func show() async throws {
        let harness = try CommandHarness(plugins: [MealPlanPlugin()]) { request, _ in
            request.url.path == "/api/mealplans/latest" ? MealPlanRESTTests.body(makeSession("mp_1", finalized: true)) : .json("{}", status: 404)
        }
        let first = try await harness.run(MealPlanCommand.Show.parse([]))
        #expect(first.stdout.contains("Salmon bowl") && first.stdout.contains("Curry"), "\(first.stdout)")
        let json = try await harness.run(MealPlanCommand.Show.parse([]), json: true)
        #expect(json.stdout.contains("\"mp_1\""), "\(json.stdout)")
        let offline = try await harness.run(MealPlanCommand.Show.parse([]), offline: true)
        #expect(offline.stdout.contains("Oats"))
        #expect(harness.requests == ["GET /api/mealplans/latest"], "a finalized plan is never fetched again")
    }

    @Test("show with no plan on the service says so and fails as not found; nothing is cached")
    func noPlan() async throws {
        let harness = try CommandHarness(plugins: [MealPlanPlugin()]) { _, _ in .json(#"{"error":{"message":"none"}}"#, status: 404) }
        await #expect(throws: (any Error).self) { try await harness.run(MealPlanCommand.Show.parse([])) }
        let offline = await #expect(throws: (any Error).self) { try await harness.run(MealPlanCommand.Show.parse([]), offline: true) }
        #expect(offline.map { ExitStatus.code(for: $0) } == 5, "offline with nothing cached: needs network")
    }
}
