import BradOSCore
import BradOSNetworking
import BradOSTerminal
import Foundation
import Synchronization
import TestSupport
import Testing
@testable import Visits

/// `brados visits …` run in process (``CommandHarness``): the commands' own logic, with a fake
/// service and captured output.
@Suite("visits' commands, in process against a fake service")
struct VisitsCommandsTests {
    @Test("list prints the service's visits; delete sends DELETE and the cached list no longer has it, offline too")
    func listAndDelete() async throws {
        let deleted = Mutex(false)
        let all = [visit("v_1", hoursAgo: 1, place: "Riverside Dental"), visit("v_2", hoursAgo: 30, place: "Corner Clinic")]
        let harness = try CommandHarness(plugins: [VisitsPlugin()]) { request, _ in
            switch (request.method, request.url.path) {
            case ("GET", "/api/visits"):
                let shown = deleted.withLock { $0 } ? Array(all.dropFirst()) : all
                return .json(String(decoding: try JSONCoding.encode(shown), as: UTF8.self))
            case ("DELETE", "/api/visits/v_1"):
                deleted.withLock { $0 = true }
                return HTTPResponse(status: 204, headers: [], body: Data())
            default: return .json("{}", status: 404)
            }
        }
        let list = try await harness.run(VisitsCommand.List.parse([]))
        #expect(list.stdout.contains("Riverside Dental") && list.stdout.contains("Corner Clinic"), "\(list.stdout)")
        let delete = try await harness.run(VisitsCommand.Delete.parse(["v_1"]))
        #expect(delete.stdout.contains("Deleted visit v_1 (Riverside Dental)."), "\(delete.stdout)")
        let after = try await harness.run(VisitsCommand.List.parse([]), json: true, offline: true)
        #expect(!after.stdout.contains("v_1") && after.stdout.contains("v_2"), "\(after.stdout)")
        #expect(harness.requests.contains("DELETE /api/visits/v_1"))
    }

    @Test("delete of a visit the service refuses puts it back in the cached list and fails")
    func refusedDelete() async throws {
        let all = [visit("v_1", hoursAgo: 1, place: "Riverside Dental")]
        let harness = try CommandHarness(plugins: [VisitsPlugin()]) { request, _ in
            request.method == "GET" ? .json(String(decoding: try JSONCoding.encode(all), as: UTF8.self))
                : .json(#"{"error":{"message":"not yours"}}"#, status: 403)
        }
        try await harness.run(VisitsCommand.List.parse([]))
        await #expect(throws: (any Error).self) { try await harness.run(VisitsCommand.Delete.parse(["v_1"])) }
        let after = try await harness.run(VisitsCommand.List.parse([]), json: true, offline: true)
        #expect(after.stdout.contains("v_1"), "restored: \(after.stdout)")
    }
}
