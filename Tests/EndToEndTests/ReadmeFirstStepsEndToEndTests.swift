import Foundation
import Testing
import TestSupport

/// The README's first steps, run literally, in order, on a new profile with no server
/// configured (the built-in demo backend), as a person copies them: every line works and
/// shows what the comment beside it says. A follow runs until Ctrl-C, as it does for a person.
@Suite("End to end: the README's first steps on a new profile", .serialized, .ownThread)
struct ReadmeFirstStepsEndToEndTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let home = TemporaryDirectory("e2e-readme")

    /// The commands of the first ```sh block under `## First steps`, comments dropped.
    static func firstSteps() throws -> [[String]] {
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## First steps").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        return block.split(separator: "\n").map { line in
            let command = line.components(separatedBy: "  #").first ?? String(line)
            return command.split(separator: " ").map(String.init)
        }.filter { !$0.isEmpty }
    }

    @Test("every command of the first steps works as written on a new profile, in order")
    func firstStepsWork() async throws {
        let steps = try Self.firstSteps()
        #expect(steps.count >= 6 && steps.allSatisfy { $0.first == "brados" }, "\(steps)")
        // A new person: an empty home, no server, no BRADOS_* setting; secrets in a file (no keyring here).
        let environment = ["HOME": home.url.path, "PATH": BuiltProducts.directory.path + ":/usr/bin:/bin", "TERM": "xterm",
                           "BRADOS_CREDENTIALS_STORE": "file"]
        for step in steps {
            let arguments = Array(step.dropFirst())
            if arguments.contains("--follow") {
                let follow = try BuiltProducts.start("brados", arguments, environment: environment)
                #expect(await eventually(timeout: .seconds(60)) { follow.stdoutSoFar.split(separator: "\n").count >= 5 }, "\(step): \(follow.stderrSoFar)")
                follow.send(SIGINT)
                let result = follow.finish()
                #expect([0, 130].contains(result.status), "\(step) exited \(result.status): \(result.stderr)")
                #expect(!result.stderr.contains("There is no conversation"), "\(step): \(result.stderr)")
                #expect(result.stdout.contains("coach") && result.stdout.contains("you"), "\(step): \(result.stdout)")
                continue
            }
            let result = try BuiltProducts.run("brados", arguments, environment: environment)
            #expect(result.status == 0, "\(step.joined(separator: " ")) exited \(result.status): \(result.stderr)")
            #expect(!result.stdout.isEmpty, "\(step.joined(separator: " ")) printed nothing")
            switch arguments.first {
            case "search":
                // The word the README searches for is in the meal plan the first step cached (its critique).
                #expect(!result.stdout.contains("No cached item matches"), "\(result.stdout)")
                #expect(result.stdout.contains(arguments[1]), "\(result.stdout)")
            case "today":
                #expect(result.stdout.contains("Meals"), "\(result.stdout)")
            default:
                break
            }
        }
    }
}
