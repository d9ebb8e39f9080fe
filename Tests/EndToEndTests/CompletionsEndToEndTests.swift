import Foundation
import Testing
import TestSupport

/// Shell completions: the committed scripts are what the command tree generates, and the bash
/// function completes commands and real ids from the local caches.
@Suite("End to end: shell completions", .serialized)
struct CompletionsEndToEndTests {
    let home = TemporaryDirectory("e2e-completions")
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("completions/ matches what `brados --generate-completion-script` prints (run `make completions` after changing commands)",
          arguments: [("bash", "brados.bash"), ("zsh", "_brados"), ("fish", "brados.fish")])
    func committedScriptsAreFresh(_ shell: String, _ file: String) throws {
        let generated = try BuiltProducts.run("brados", ["--generate-completion-script", shell], environment: ["HOME": home.url.path])
        #expect(generated.status == 0)
        let committed = try String(contentsOf: Self.repository.appendingPathComponent("completions/\(file)"), encoding: .utf8)
        #expect(generated.stdout == committed, "completions/\(file) is stale: run `make completions`")
    }

    /// Runs the bash completion function for a command line; returns the candidates.
    func complete(_ line: String, environment: [String: String]) throws -> [String] {
        let script = """
        source '\(Self.repository.appendingPathComponent("completions/brados.bash").path)'
        COMP_LINE='\(line)'
        COMP_POINT=${#COMP_LINE}
        read -r -a COMP_WORDS <<< "$COMP_LINE"
        if [[ "$COMP_LINE" == *' ' ]]; then COMP_WORDS+=(''); fi
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        _brados brados "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.environment = environment.merging(["PATH": BuiltProducts.directory.path + ":/usr/bin:/bin"]) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test("bash: `brados lib<TAB> art<TAB>` and a rating key, conversation ids and profile names from the local caches")
    func bashCompletesRealValues() async throws {
        let server = try ServerProcess()
        let environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString]
        for (arguments, stdin) in [(["auth", "login", "--user", "demo", "--password-stdin"], "demo"),
                                   (["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], "demo")] {
            #expect(try BuiltProducts.run("brados", arguments, environment: environment, stdin: stdin).status == 0)
        }
        #expect(try BuiltProducts.run("brados", ["library", "albums"], environment: environment).status == 0)
        let albums = try BuiltProducts.run("brados", ["--offline", "library", "albums", "--json"], environment: environment)
        let document = try JSONSerialization.jsonObject(with: Data(albums.stdout.utf8)) as? [String: Any]
        let keys = (document?["albums"] as? [[String: Any]] ?? []).compactMap { $0["ratingKey"] as? String }
        #expect(!keys.isEmpty)
        let conversations = try BuiltProducts.run("brados", ["coach", "--json"], environment: environment)
        #expect(conversations.status == 0)

        #expect(try complete("brados lib", environment: environment) == ["library"])
        #expect(try complete("brados library art", environment: environment) == ["artwork"])
        let ratingKeys = try complete("brados library artwork ", environment: environment)
        #expect(Set(ratingKeys) == Set(keys))
        let ids = try complete("brados coach show ", environment: environment)
        #expect(ids.count == 8 && ids.allSatisfy { $0.count == 36 })
        #expect(try complete("brados coach show \(ids[0].prefix(6))", environment: environment) == [ids[0]])
        #expect(try complete("brados auth switch ", environment: environment) == ["default"])
        #expect(try complete("brados cache clear c", environment: environment) == ["coach"])
        #expect(try complete("brados config get plan.", environment: environment) == ["plan.ttl"])
    }
}
