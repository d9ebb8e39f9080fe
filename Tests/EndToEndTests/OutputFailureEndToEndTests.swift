import Foundation
import Testing
import TestSupport

/// A command whose output cannot be written does not end in success: every command's table and
/// `--json` to /dev/full exits 10 and says the disk is full; a closed stdout is a failure (1)
/// that takes nothing from the files brados opens.
@Suite("End to end: output that cannot be written", .serialized, .ownThread)
struct OutputFailureEndToEndTests {
    let home = TemporaryDirectory("e2e-output-failure")

    var environment: [String: String] { ["BRADOS_HOME": home.url.path, "HOME": home.url.path] }

    /// `brados ARGUMENTS` with stdout sent where `redirection` says (a shell's words).
    func brados(_ arguments: [String], _ server: ServerProcess, redirection: String, stdin: String? = nil) throws -> BuiltProducts.Result {
        let brados = BuiltProducts.url("brados").path
        return try BuiltProducts.run(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" \"$@\" \(redirection)", brados] + arguments,
                                     environment: BuiltProducts.quiet(environment.merging(["BRADOS_SERVER": server.url.absoluteString]) { $1 }), stdin: stdin)
    }

    @Test("every command's table and --json to /dev/full: exit 10, the disk is full, nothing stored changed")
    func fullOutputIsAFailure() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, redirection: "", stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], server, redirection: "", stdin: "demo").status == 0)
        #expect(try brados(["sync"], server, redirection: ">/dev/null").status == 0)
        /// The visits stored (their ids and places), not the listing's age.
        func stored() throws -> [String] {
            let listing = try BuiltProducts.run("brados", ["--offline", "visits", "list", "--json"], environment: environment).stdout
            let document = try JSONSerialization.jsonObject(with: Data(listing.utf8)) as? [String: Any]
            return ((document?["visits"] as? [[String: Any]]) ?? []).map { "\($0["id"] ?? "") \($0["place"] ?? "")" }
        }
        let before = try stored()
        #expect(!before.isEmpty)
        var wrong: [String] = []
        let reads = JSONContractEndToEndTests.runs.map(\.arguments).filter { !["sync", "auth"].contains($0[0]) && !$0.contains("weight") && $0 != ["plan", "sync"] }
        for arguments in reads + [["exit-codes"], ["--version"], ["--help"], ["visits", "--help"]] {
            for json in [false, true] where !(json && arguments.contains(where: { $0.hasPrefix("-") || $0 == "exit-codes" })) {
                let result = try brados(arguments + (json ? ["--json"] : []), server, redirection: ">/dev/full")
                if result.status != 10 || !result.stderr.contains("Could not write the output: the disk is full.") {
                    wrong.append("\((arguments + (json ? ["--json"] : [])).joined(separator: " ")): exit \(result.status), \(result.stderr)")
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.joined(separator: "\n"))")
        #expect(try stored() == before)
    }

    @Test("a closed stdout: exit 1 with the reason, and no file brados opens takes the output")
    func closedOutputIsAFailure() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, redirection: "", stdin: "demo").status == 0)
        let result = try brados(["visits", "list"], server, redirection: ">&-")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("Could not write the output: Bad file descriptor."), "\(result.stderr)")
        let again = try brados(["--offline", "visits", "list", "--json"], server, redirection: "")
        #expect(again.status == 0, "\(again.stderr)")
        #expect((try? JSONSerialization.jsonObject(with: Data(again.stdout.utf8))) != nil, "the cache still parses")
        // A full stderr keeps the command's own status.
        let noisy = try brados(["nosuch"], server, redirection: "2>/dev/full")
        #expect(noisy.status == 64)
    }
}
