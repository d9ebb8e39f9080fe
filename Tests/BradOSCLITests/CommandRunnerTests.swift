import ArgumentParser
@testable import BradOSCLI
import BradOSCore
import BradOSTerminal
import Foundation
import Testing
import TestSupport

/// A small root command: a version, an option of its own and two subcommands.
struct QuickRoot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quick",
        abstract: "A root for the quick-answer tests.",
        version: "9.8.7",
        subcommands: [QuickChild.self, QuickOther.self])

    @Option(help: "A root option, so the help has an options section.") var color: String?
}

struct QuickChild: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "child", abstract: "The first child.")
    @Flag(help: "A child flag.") var loud = false
}

struct QuickOther: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "other", abstract: "The second child.")
}

@Suite("Command runner")
struct CommandRunnerTests {
    /// What the full parser prints for `arguments`, and its exit code.
    func parsed(_ arguments: [String]) async -> (code: Int32, out: String, err: String) {
        let io = CapturingIO(environment: [:])
        let code = await CommandRunner.run(QuickRoot.self, arguments: arguments, io: io)
        return (code, io.stdout, io.stderr)
    }

    @Test("--version, --help, -h and help are answered without parsing, exactly as the parser answers them")
    func quickAnswersMatchTheParser() async throws {
        for arguments in [["--version"], ["--help"], ["-h"], ["help"]] {
            let quick = try #require(CommandRunner.quickAnswer(QuickRoot.self, arguments: arguments), "\(arguments)")
            let full = await parsed(arguments)
            #expect(full.code == 0)
            #expect(full.err.isEmpty)
            #expect(quick + "\n" == full.out, "\(arguments)")
        }
        #expect(CommandRunner.quickAnswer(QuickRoot.self, arguments: ["--version"]) == "9.8.7")
        #expect(CommandRunner.quickAnswer(QuickRoot.self, arguments: ["--help"])?.contains("child") == true)
    }

    @Test("anything else goes to the parser: subcommand help, extra arguments, other flags")
    func everythingElseIsParsed() async {
        for arguments in [["child", "--help"], ["--help", "child"], ["--color", "red"], ["--version", "--help"], [], ["--bogus"]] {
            #expect(CommandRunner.quickAnswer(QuickRoot.self, arguments: arguments) == nil, "\(arguments)")
        }
        let child = await parsed(["child", "--help"])
        #expect(child.code == 0)
        #expect(child.out.contains("A child flag."))
        let bogus = await parsed(["--bogus"])
        #expect(bogus.code == 64)
        #expect(bogus.err.contains("Unknown option '--bogus'"))
    }

    @Test("a root without a version is parsed, so --version is the parser's usage error")
    func noVersion() {
        #expect(CommandRunner.quickAnswer(QuickChild.self, arguments: ["--version"]) == nil)
    }
}

@Suite("Command runner: output that could not be written")
struct CommandRunnerOutputTests {
    @Test("a success whose stdout failed ends with the failure: 10 for a full disk, 1 for another, said on stderr")
    func failedOutputSettles() {
        let full = CapturingIO(environment: [:], writeFailure: .writeFailed(stream: .output, errno: ENOSPC))
        #expect(CommandRunner.settle(0, io: full) == 10)
        #expect(full.stderr.contains("Could not write the output: the disk is full."), "\(full.stderr)")
        let broken = CapturingIO(environment: [:], writeFailure: .writeFailed(stream: .output, errno: EIO))
        #expect(CommandRunner.settle(0, io: broken) == 1)
        #expect(broken.stderr.contains("Input/output error"), "\(broken.stderr)")
    }

    @Test("a failed command keeps its code; a failed stderr is not written to again; nothing failed is the code itself")
    func otherCodesStay() {
        #expect(CommandRunner.settle(5, io: CapturingIO(environment: [:], writeFailure: .writeFailed(stream: .output, errno: ENOSPC))) == 5)
        let quiet = CapturingIO(environment: [:], writeFailure: .writeFailed(stream: .error, errno: ENOSPC))
        #expect(CommandRunner.settle(0, io: quiet) == 10)
        #expect(quiet.stderr.isEmpty)
        #expect(CommandRunner.settle(0, io: CapturingIO(environment: [:], writeFailure: nil)) == 0)
    }
}
