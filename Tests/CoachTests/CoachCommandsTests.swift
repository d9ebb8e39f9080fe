@testable import Coach
import Foundation
import TestSupport
import Testing

/// `brados coach …` run in process (``CommandHarness``) against the reference server's demo,
/// inside the test process: the commands' own logic, with captured output.
@Suite("coach's commands, in process against the demo service")
struct CoachCommandsTests {
    func conversations(_ io: CapturingIO) throws -> [[String: Any]] {
        let document = try JSONSerialization.jsonObject(with: Data(io.stdout.utf8))
        return try #require((document as? [String: Any])?["conversations"] as? [[String: Any]] ?? document as? [[String: Any]], "\(io.stdout)")
    }

    @Test("conversations lists the service's, offline from the copy; delete removes one there and here")
    func conversationsAndDelete() async throws {
        let harness = CommandHarness(plugins: [CoachPlugin()])
        let listed = try conversations(try await harness.run(CoachCommand.Conversations.parse([]), json: true))
        let routine = try #require(listed.first { $0["title"] as? String == "Evening wind-down routine" }, "\(listed.count) listed")
        let id = try #require(routine["id"] as? String)
        let human = try await harness.run(CoachCommand.Conversations.parse([]), offline: true)
        #expect(human.stdout.contains("Evening wind-down routine"))
        try await harness.run(CoachCommand.Delete.parse([id, "--yes"]))
        let after = try conversations(try await harness.run(CoachCommand.Conversations.parse([]), json: true, offline: true))
        #expect(!after.contains { $0["id"] as? String == id } && after.count == listed.count - 1)
    }

    @Test("show prints a conversation's last messages, and offline the same from the copy")
    func show() async throws {
        let harness = CommandHarness(plugins: [CoachPlugin()])
        let listed = try conversations(try await harness.run(CoachCommand.Conversations.parse([]), json: true))
        let id = try #require(listed.first?["id"] as? String)
        let online = try await harness.run(CoachCommand.Show.parse([id, "--last", "2"]))
        let offline = try await harness.run(CoachCommand.Show.parse([id, "--last", "2"]), offline: true)
        let lines = { (io: CapturingIO) in io.stdout.split(separator: "\n").map(String.init) }
        #expect(lines(online).first?.hasSuffix("from the network") == true && lines(offline).first?.contains("from cache") == true)
        #expect(lines(online).count >= 4 && lines(online).dropFirst() == lines(offline).dropFirst(), "\(online.stdout)\n---\n\(offline.stdout)")
    }
}
