import Foundation
import Testing
import TestSupport

/// Shell completions: the committed scripts are what the command tree generates, and the bash
/// function completes commands and real ids from the local caches.
@Suite("End to end: shell completions", .serialized, .ownThread)
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
        // Wherever the flag is on the command line, the hardened script is what prints.
        for arguments in [["--profile", "x", "--generate-completion-script", shell], ["visits", "--generate-completion-script=\(shell)"]] {
            let elsewhere = try BuiltProducts.run("brados", arguments, environment: ["HOME": home.url.path])
            #expect(elsewhere.stdout == committed, "\(arguments)")
        }
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
        process.executableURL = try SystemCommand.url("bash")
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

    /// The environment of a profile signed in to `server`'s BradOS and Supabase accounts.
    func signedIn(_ server: ServerProcess) throws -> [String: String] {
        let environment = ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString]
        for (arguments, stdin) in [(["auth", "login", "--user", "demo", "--password-stdin"], "demo"),
                                   (["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], "demo")] {
            #expect(try BuiltProducts.run("brados", arguments, environment: environment, stdin: stdin).status == 0)
        }
        return environment
    }

    @Test("bash: `brados lib<TAB> art<TAB>` and a rating key, conversation ids and profile names from the local caches")
    func bashCompletesRealValues() async throws {
        let server = try ServerProcess()
        let environment = try signedIn(server)
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

    @Test("what a person types next: --profile before any command, a domain's own flags (its default command's), and `brados completion SHELL`")
    func whatComesNext() async throws {
        let server = try ServerProcess()
        let environment = try signedIn(server)
        #expect(try BuiltProducts.run("brados", ["--profile", "work", "auth", "login", "--user", "demo", "--password-stdin"],
                                      environment: environment, stdin: "demo").status == 0)
        #expect(try complete("brados --profile ", environment: environment) == ["default", "work"])
        #expect(try complete("brados --profile w", environment: environment) == ["work"])
        #expect(try complete("brados --profile work visits l", environment: environment) == ["list"])
        #expect(try complete("brados --offline --profile work coach sh", environment: environment) == ["show"])
        let visitsFlags = try complete("brados visits --", environment: environment)
        #expect(visitsFlags.contains("--refresh") && visitsFlags.contains("--json") && visitsFlags.contains("--profile"), "\(visitsFlags)")
        #expect(try complete("brados plan --j", environment: environment) == ["--json"])
        #expect(try complete("brados visits --profile ", environment: environment) == ["default", "work"])
        for shell in ["bash", "zsh", "fish"] {
            let printed = try BuiltProducts.run("brados", ["completion", shell], environment: environment)
            let generated = try BuiltProducts.run("brados", ["--generate-completion-script", shell], environment: environment)
            #expect(printed.status == 0 && printed.stdout == generated.stdout, "\(shell)")
        }
        let unknown = try BuiltProducts.run("brados", ["completion", "tcsh"], environment: environment)
        #expect(unknown.status == 64 && unknown.stderr.contains("bash, zsh or fish"))
    }

    @Test("coach ids come with their titles in zsh and fish (one line of text each), alone in bash")
    func describedIDs() async throws {
        let server = try ServerProcess()
        let environment = try signedIn(server)
        let listed = try BuiltProducts.run("brados", ["coach", "--json"], environment: environment)
        let first = try #require(((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["conversations"] as? [[String: Any]])?.first)
        let (id, title) = (try #require(first["id"] as? String), try #require(first["title"] as? String))
        func offered(_ shell: String) throws -> [String] {
            let result = try BuiltProducts.run("brados", ["---completion", "coach", "show", "--", "positional@0", "3", "0"],
                                               environment: environment.merging(["SAP_SHELL": shell]) { $1 })
            return result.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try offered("bash").contains(id))
        #expect(try offered("fish").contains("\(id)\t\(title)"))
        #expect(try offered("zsh").contains("\(id)\u{1F}\(title)"))
        // zsh's script makes the separator the `:` that starts a description (colons of the text escaped).
        let zsh = try runShell(try SystemCommand.url("zsh").path, ["-f", "-c"], script: """
            compdef() { :; }
            source '\(Self.repository.appendingPathComponent("completions/_brados").path)'
            _describe() { print -rl -- "${(@P)3}" }
            command_name=brados; command_line=(brados coach show ''); export SAP_SHELL=zsh  # as _brados sets it
            __brados_custom_complete ---completion coach show -- positional@0 3 0
            """, path: BuiltProducts.directory.path + ":/usr/bin:/bin", environment: environment)
        #expect(zsh.contains("\(id):\(title.replacingOccurrences(of: ":", with: "\\:"))"), "\(zsh)")
    }

    // MARK: - Hostile values (issue 16: command execution through completion)

    /// Values a hostile archive or server could plant: each would create `marker` if any
    /// shell evaluated it.
    static func hostileValues(_ marker: String) -> [String] {
        ["$(touch \(marker)-dollar)", "`touch \(marker)-backtick`", "x;touch \(marker)-semicolon", "*", "?[a]", "$HOME", "x\ny", "good-id", "last-line"]
    }

    /// A stand-in `brados` that answers every `---completion` call with the hostile values.
    func fakeBrados(printing values: [String]) throws -> URL {
        let bin = home.url.appendingPathComponent("fake-bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let data = home.url.appendingPathComponent("fake-values")
        try Data(values.joined(separator: "\n").utf8 + [10]).write(to: data)
        let script = bin.appendingPathComponent("brados")
        try "#!/bin/sh\ncat '\(data.path)'\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return bin
    }

    /// Runs a shell script; returns stdout.
    func runShell(_ shell: String, _ arguments: [String], script: String, path: String, environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = arguments + [script]
        process.environment = environment.merging(["PATH": path, "HOME": home.url.path]) { $1 }
        process.currentDirectoryURL = home.url
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func markers() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: home.url.path)) ?? []).filter { $0.hasPrefix("pwned") }
    }

    @Test("no shell evaluates a completion value: $(…), backticks, ;, globs, variables and newlines stay text",
          arguments: ["bash", "zsh", "fish"])
    func hostileValuesAreNeverEvaluated(_ shell: String) throws {
        let shellPath = try SystemCommand.url(shell).path
        let marker = home.url.appendingPathComponent("pwned").path
        let bin = try fakeBrados(printing: Self.hostileValues(marker))
        let path = bin.path + ":/usr/bin:/bin"
        // Every id kind goes through the same function; one command line per kind.
        for line in ["brados visits show ", "brados library artwork ", "brados coach show "] {
            let candidates: String
            switch shell {
            case "bash":
                candidates = try runShell(shellPath, ["-c"], script: """
                    source '\(Self.repository.appendingPathComponent("completions/brados.bash").path)'
                    COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
                    read -r -a COMP_WORDS <<< "$COMP_LINE"; COMP_WORDS+=('')
                    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
                    _brados brados '' "${COMP_WORDS[COMP_CWORD-1]}"
                    printf '%s\\n' "${COMPREPLY[@]}"
                    """, path: path)
                // Offered, but quoted: inserting one puts text on the command line, not code.
                #expect(candidates.contains("good-id"))
                #expect(candidates.contains("\\$\\(touch"), "the $(…) value is offered quoted: \(candidates)")
                #expect(!candidates.contains("\n$(touch"))
            case "zsh":
                // zsh's completion system needs a terminal; the stand-ins record what would reach it.
                candidates = try runShell(shellPath, ["-f", "-c"], script: """
                    compdef() { :; }
                    source '\(Self.repository.appendingPathComponent("completions/_brados").path)'
                    _describe() { print -rl -- "${(@P)3}" }
                    command_name=brados; command_line=(\(line.split(separator: " ").map { "'\($0)'" }.joined(separator: " ")) '')
                    __brados_custom_complete ---completion x -- positional@0 3 0
                    """, path: path)
                #expect(candidates.contains("good-id"))
            default:
                candidates = try runShell(shellPath, ["--no-config", "-c"], script: """
                    source '\(Self.repository.appendingPathComponent("completions/brados.fish").path)'
                    complete -C '\(line)'
                    """, path: path)
                #expect(candidates.contains("good-id"))
            }
            #expect(markers().isEmpty, "\(shell) ran a planted command completing '\(line)': \(markers())\n\(candidates)")
        }
    }

    @Test("ids planted in the caches (visits, library, coach) are never offered, nor run")
    func plantedCacheIdsAreRefused() async throws {
        let server = try ServerProcess()
        let environment = try signedIn(server)
        for arguments in [["visits", "list"], ["library", "albums"], ["coach", "--json"]] {
            #expect(try BuiltProducts.run("brados", arguments, environment: environment).status == 0)
        }
        let marker = home.url.appendingPathComponent("pwned").path
        let hostile = "$(touch \(marker))"
        // visits: the first cached visit's id.
        let defaults = home.url.appendingPathComponent("data/users/default/visits/visits.json")
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: defaults)) as? [String: Any])
        var visits = try #require(document["cached_visits"] as? [[String: Any]])
        visits[0]["id"] = hostile
        document["cached_visits"] = visits
        try JSONSerialization.data(withJSONObject: document).write(to: defaults)
        // library: the first album's rating key in the store.
        let library = Process()
        library.executableURL = try SystemCommand.url("python3")
        library.arguments = ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('UPDATE album SET ratingKey=? WHERE id=(SELECT id FROM album WHERE shown=1 ORDER BY sortTitle, ratingKey LIMIT 1)', (sys.argv[2],)); c.commit()",
                             home.url.appendingPathComponent("data/users/default/library/library.sqlite").path, "`touch \(marker)`"]
        try library.run()
        library.waitUntilExit()
        #expect(library.terminationStatus == 0)
        // coach: a conversation's remote id in SQLite.
        let database = home.url.appendingPathComponent("data/users/default/coach/coach.sqlite")
        let python = Process()
        python.executableURL = try SystemCommand.url("python3")
        python.arguments = ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('UPDATE conversation SET remoteId=? WHERE rowid=(SELECT MIN(rowid) FROM conversation)', (sys.argv[2],)); c.commit()",
                            database.path, "x;touch \(marker)"]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)

        for line in ["brados visits show ", "brados library artwork ", "brados coach show "] {
            let offered = try complete(line, environment: environment)
            #expect(!offered.contains { $0.contains("touch") }, "\(line): \(offered)")
        }
        #expect(try complete("brados coach show ", environment: environment).count == 7)
        #expect(markers().isEmpty)
    }
}
