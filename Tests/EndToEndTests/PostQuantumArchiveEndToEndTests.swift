import Foundation
import Testing
import TestSupport

/// Post-quantum archives end to end (issue 46): `keys generate --post-quantum`, an export to
/// an `age1pq1…` recipient and its import; classic and post-quantum recipients never mixed;
/// the `age` command both ways when its version reads them (1.3), and otherwise its refusal.
@Suite("End to end: post-quantum age archives", .serialized, .ownThread)
struct PostQuantumArchiveEndToEndTests {
    let archives = EncryptedArchiveEndToEndTests()
    var home: URL { archives.home.url }

    func brados(_ arguments: [String], _ server: ServerProcess, home folder: URL? = nil, stdin: String? = nil) throws -> BuiltProducts.Result {
        try archives.brados(arguments, server, home: folder, stdin: stdin)
    }

    /// The recipient types of an age file's header.
    func stanzaTypes(_ file: URL) throws -> [String] {
        let text = String(decoding: try Data(contentsOf: file).prefix(16_000), as: UTF8.self)
        return text.components(separatedBy: "\n").prefix { !$0.hasPrefix("---") }.filter { $0.hasPrefix("-> ") }.map { String($0.split(separator: " ")[1]) }
    }

    /// The installed age's version as (major, minor), or nil when it has none.
    static func ageVersion() -> (Int, Int)? {
        guard let result = try? SystemCommand.run("age", ["--version"]), result.status == 0 else { return nil }
        let numbers = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).drop { !$0.isNumber }.split(separator: ".").compactMap { Int($0.prefix { $0.isNumber }) }
        return numbers.count >= 2 ? (numbers[0], numbers[1]) : nil
    }

    @Test("keys generate --post-quantum; export --encrypt has one mlkem768x25519 stanza; verify and import --as open it offline")
    func ownKey() async throws {
        let server = try ServerProcess()
        try archives.fill(server)
        let generated = try brados(["keys", "generate", "--post-quantum"], server)
        #expect(generated.status == 0 && generated.stdout.hasPrefix("age1pq1"), "\(generated.stderr)")
        let shown = try JSONSerialization.jsonObject(with: Data(try brados(["keys", "show", "--json"], server).stdout.utf8)) as? [String: Any]
        #expect(shown?["recipient"] as? String == generated.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(shown?["postQuantum"] as? Bool == true && shown?["kind"] as? String == "mlkem768x25519")
        let keyFile = try #require(shown?["identityFile"] as? String)
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8).contains("\nAGE-SECRET-KEY-PQ-1"))

        let archive = home.appendingPathComponent("pq.tar.zst.age")
        let export = try brados(["cache", "export", "--encrypt", "-o", archive.path], server)
        #expect(export.status == 0 && export.stdout.contains("age-encrypted to 1 key"), "\(export.stderr)")
        #expect(try stanzaTypes(archive) == ["mlkem768x25519"])
        let verify = try brados(["cache", "verify", archive.path], server)
        #expect(verify.status == 0 && verify.stdout.contains("every chunk authenticated"), "\(verify.stderr)")
        // Another person's home: the key passed with --identity opens it.
        let other = home.appendingPathComponent("other-home")
        let imported = try brados(["cache", "import", archive.path, "--as", "copy", "--identity", keyFile], server, home: other)
        #expect(imported.status == 0, "\(imported.stderr)")
        let original = try brados(["--offline", "visits", "list", "--json"], server)
        let copy = try brados(["--offline", "--profile", "copy", "visits", "list", "--json"], server, home: other)
        let strip = { (text: String) in text.split(separator: "\n").filter { !$0.contains("ageSeconds") && !$0.contains("cachedAt") }.joined(separator: "\n") }
        #expect(copy.status == 0 && !copy.stdout.isEmpty && strip(copy.stdout) == strip(original.stdout))
        // Without the key: no match, exit 12, nothing imported.
        let refused = try brados(["cache", "import", archive.path, "--as", "stranger"], server, home: home.appendingPathComponent("stranger-home"))
        #expect(refused.status == 12, "\(refused.stderr)")
    }

    @Test("--recipient age1pq1… with a classic age1… is refused before anything is written (exit 64); two post-quantum recipients each open it")
    func neverMixed() async throws {
        let server = try ServerProcess()
        try archives.fill(server)
        let alice = home.appendingPathComponent("alice"), bob = home.appendingPathComponent("bob"), carol = home.appendingPathComponent("carol")
        #expect(try brados(["keys", "generate", "--pq"], server, home: alice).status == 0)
        #expect(try brados(["keys", "generate", "--post-quantum"], server, home: bob).status == 0)
        #expect(try brados(["keys", "generate"], server, home: carol).status == 0)
        let line = { (folder: URL) in try self.brados(["keys", "show"], server, home: folder).stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
        let mixed = home.appendingPathComponent("mixed.age")
        let refused = try brados(["cache", "export", "--recipient", try line(alice), "--recipient", try line(carol), "-o", mixed.path], server)
        #expect(refused.status == 64 && refused.stderr.contains("cannot be combined") && refused.stderr.contains("age1pq1"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: mixed.path))
        let recipients = home.appendingPathComponent("pq-recipients.txt")
        try "# alice\n\(try line(alice))\n# bob\n\(try line(bob))\n".write(to: recipients, atomically: true, encoding: .utf8)
        let archive = home.appendingPathComponent("both.age")
        let export = try brados(["cache", "export", "--recipients-file", recipients.path, "-o", archive.path], server)
        #expect(export.status == 0 && export.stdout.contains("age-encrypted to 2 keys"), "\(export.stderr)")
        #expect(try stanzaTypes(archive) == ["mlkem768x25519", "mlkem768x25519"])
        for folder in [alice, bob] {
            let verify = try brados(["cache", "verify", archive.path], server, home: folder)
            #expect(verify.status == 0, "\(verify.stderr)")
        }
        #expect(try brados(["cache", "verify", archive.path], server, home: carol).status == 12)
    }

    @Test("the age command: with 1.3 or later it opens brados's post-quantum archive and writes one brados imports; before 1.3 it refuses age1pq1…")
    func ageTool() async throws {
        let version = try #require(Self.ageVersion(), "the age command is installed by scripts/ensure-deps.sh")
        let server = try ServerProcess()
        try archives.fill(server)
        #expect(try brados(["keys", "generate", "--post-quantum"], server).status == 0)
        let recipient = try brados(["keys", "show"], server).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let keyFile = try #require((try JSONSerialization.jsonObject(with: Data(try brados(["keys", "show", "--json"], server).stdout.utf8)) as? [String: Any])?["identityFile"] as? String)
        let archive = home.appendingPathComponent("for-age.tar.zst.age")
        #expect(try brados(["cache", "export", "--encrypt", "-o", archive.path], server).status == 0)
        let plain = home.appendingPathComponent("plain.tar.zst")
        let opened = try SystemCommand.run("age", ["-d", "-i", keyFile, "-o", plain.path, archive.path])
        let sealed = home.appendingPathComponent("from-age.age")
        let hello = home.appendingPathComponent("hello.txt")
        try Data("hello\n".utf8).write(to: hello)
        let wrote = try SystemCommand.run("age", ["-r", recipient, "-o", sealed.path, version >= (1, 3) ? plain.path : hello.path])
        if version >= (1, 3) {
            #expect(opened.status == 0, "age -d: \(opened.stderr)")
            #expect(try SystemCommand.run("tar", ["--zstd", "-tf", plain.path]).stdout.hasPrefix("manifest.json\n"))
            #expect(wrote.status == 0, "age -r: \(wrote.stderr)")
            let imported = try brados(["cache", "import", sealed.path, "--as", "from-age"], server)
            #expect(imported.status == 0, "\(imported.stderr)")
        } else {
            // An age that predates the hybrid type neither reads the key nor encrypts to it;
            // the documentation says so (age 1.3 or later).
            #expect(opened.status != 0 && !FileManager.default.fileExists(atPath: plain.path), "age \(version) opened it")
            #expect(wrote.status != 0 && !FileManager.default.fileExists(atPath: sealed.path), "age \(version) encrypted to it")
        }
    }
}
