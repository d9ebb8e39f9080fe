import Crypto
import Foundation
import Testing
import TestSupport

/// Encrypted archives end to end (issue 20): brados and the `age` command open each other's
/// files, both ways, binary and armored, with keys and passphrases (typed on a terminal,
/// driven through a pty); a file changed anywhere is refused and nothing is imported.
@Suite("End to end: age-encrypted cache archives", .serialized, .ownThread)
struct EncryptedArchiveEndToEndTests {
    let home = TemporaryDirectory("e2e-age")

    func environment(_ server: ServerProcess, home folder: URL? = nil) -> [String: String] {
        let root = (folder ?? home.url).path
        return ["BRADOS_HOME": root, "HOME": root, "BRADOS_SERVER": server.url.absoluteString, "BRADOS_ARCHIVE_SCRYPT_WORK_FACTOR": "10"]
    }

    func brados(_ arguments: [String], _ server: ServerProcess, home folder: URL? = nil, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: environment(server, home: folder), stdin: stdin)
    }


    /// Runs a command on a pseudo-terminal and types each answer when it asks (a prompt that
    /// mentions a passphrase): how a person meets `age -p` and brados's own prompt.
    static let ptyDriver = """
        import os, sys, time
        answers = sys.argv[1].split("\\x1f") if sys.argv[1] else []
        command = sys.argv[2:]
        pid, fd = os.forkpty()
        if pid == 0:
            os.execvp(command[0], command)
        seen, since = b"", b""
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            seen += data
            since += data
            text = since.decode(errors="replace").lower()
            if answers and text.rstrip().endswith(":") and ("passphrase" in text or "again" in text):
                os.write(fd, (answers.pop(0) + "\\n").encode())
                since = b""
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(seen.decode(errors="replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """

    func onTerminal(_ answers: [String], _ command: [String], environment: [String: String]) throws -> BuiltProducts.Result {
        try SystemCommand.run("python3", ["-c", Self.ptyDriver, answers.joined(separator: "\u{1f}")] + command, environment: environment)
    }

    /// Every file under a profile's folders with its SHA-256: "the cache as before".
    func snapshot(_ profile: String, home folder: URL? = nil) throws -> [String: String] {
        var files: [String: String] = [:]
        for side in ["cache", "data"] {
            let root = (folder ?? home.url).appendingPathComponent(side).appendingPathComponent("users").appendingPathComponent(profile)
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                files[side + url.path.dropFirst(root.path.count)] = SHA256.hash(data: try Data(contentsOf: url)).map { String(format: "%02x", $0) }.joined()
            }
        }
        return files
    }

    /// A signed-in profile with every domain cached, artwork included (a multi-chunk archive).
    func fill(_ server: ServerProcess) throws {
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        for command in [["mealplan", "show"], ["visits", "list"], ["coach"], ["plan"], ["library", "albums"], ["library", "prefetch", "--rows", "1", "--columns", "2"]] {
            let result = try brados(command, server)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
    }

    @Test("keys generate/show; --encrypt: `age -d -i KEY` opens it and tar lists manifest.json first; armored too; brados imports both offline")
    func bradosToAge() async throws {
        let server = try ServerProcess()
        try fill(server)
        let generated = try brados(["keys", "generate"], server)
        #expect(generated.status == 0 && generated.stdout.hasPrefix("age1"), "\(generated.stderr)")
        let recipient = generated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = try JSONSerialization.jsonObject(with: Data(try brados(["keys", "show", "--json"], server).stdout.utf8)) as? [String: Any]
        #expect(shown?["recipient"] as? String == recipient)
        let keyFile = try #require(shown?["identityFile"] as? String)
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8).contains("AGE-SECRET-KEY-1"))
        // A second generate never replaces it.
        let again = try brados(["keys", "generate"], server)
        #expect(again.status == 64 && again.stderr.contains("already has an age key"), "\(again.stderr)")

        for armor in [false, true] {
            let archive = home.url.appendingPathComponent(armor ? "backup.age" : "backup.tar.zst.age")
            let export = try brados(["cache", "export", "--encrypt", "-o", archive.path] + (armor ? ["--armor"] : []), server)
            #expect(export.status == 0 && export.stdout.contains("age-encrypted to 1 key"), "\(export.stderr)")
            let head = String(decoding: try Data(contentsOf: archive).prefix(40), as: UTF8.self)
            #expect(head.hasPrefix(armor ? "-----BEGIN AGE ENCRYPTED FILE-----\n" : "age-encryption.org/v1\n"))
            let plain = home.url.appendingPathComponent("plain.tar.zst")
            let decrypted = try SystemCommand.run("age", ["-d", "-i", keyFile, "-o", plain.path, archive.path])
            #expect(decrypted.status == 0, "age -d: \(decrypted.stderr)")
            let listed = try SystemCommand.run("tar", ["--zstd", "-tf", plain.path])
            let names = listed.stdout.split(separator: "\n").map(String.init)
            #expect(listed.status == 0 && names.first == "manifest.json" && names.contains { $0.hasPrefix("cache/library/artwork/") }, "\(listed.stderr)")
            // Every entry, the in-memory database copies and the visits file included, is 0600.
            let modes = try SystemCommand.run("tar", ["--zstd", "-tvf", plain.path]).stdout.split(separator: "\n").map { String($0.prefix(10)) }
            #expect(!modes.isEmpty && modes.allSatisfy { $0 == "-rw-------" }, "\(Set(modes))")
            let verify = try brados(["cache", "verify", archive.path], server)
            #expect(verify.status == 0 && verify.stdout.contains("every chunk authenticated"), "\(verify.stderr)")
        }
        let imported = try brados(["cache", "import", home.url.appendingPathComponent("backup.age").path, "--as", "copy"], server)
        #expect(imported.status == 0, "\(imported.stderr)")
        let original = try brados(["--offline", "visits", "list", "--json"], server)
        let copy = try brados(["--offline", "--profile", "copy", "visits", "list", "--json"], server)
        #expect(copy.status == 0 && !copy.stdout.isEmpty)
        let strip = { (text: String) in text.split(separator: "\n").filter { !$0.contains("ageSeconds") && !$0.contains("cachedAt") }.joined(separator: "\n") }
        #expect(strip(copy.stdout) == strip(original.stdout))
    }

    @Test("age -r, age -a -r and age -p (typed through a pty) make files brados imports; brados's own prompt and --passphrase-stdin")
    func ageToBrados() async throws {
        let server = try ServerProcess()
        try fill(server)
        let recipient = try brados(["keys", "generate"], server).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let plain = home.url.appendingPathComponent("plain.tar.zst")
        #expect(try brados(["cache", "export", "-o", plain.path], server).status == 0)
        for (name, flags) in [("binary.age", ["-r", recipient]), ("armored.age", ["-a", "-r", recipient])] {
            let file = home.url.appendingPathComponent(name)
            let made = try SystemCommand.run("age", flags + ["-o", file.path, plain.path])
            #expect(made.status == 0, "\(made.stderr)")
            let imported = try brados(["cache", "import", file.path, "--as", "from-\(name.split(separator: ".")[0])", "--json"], server)
            #expect(imported.status == 0, "\(name): \(imported.stderr)")
        }
        // age -p asks twice on its terminal; brados asks once, on its own.
        let protected = home.url.appendingPathComponent("passphrase.age")
        let made = try onTerminal(["correct horse", "correct horse"], ["age", "-p", "-o", protected.path, plain.path], environment: [:])
        #expect(made.status == 0, "age -p: \(made.stdout)")
        let typed = try onTerminal(["correct horse"], [BuiltProducts.url("brados").path, "cache", "verify", protected.path], environment: environment(server))
        #expect(typed.status == 0 && typed.stdout.contains("every chunk authenticated"), "\(typed.stdout)")
        let wrong = try onTerminal(["battery staple"], [BuiltProducts.url("brados").path, "cache", "verify", protected.path], environment: environment(server))
        #expect(wrong.status == 12 && wrong.stdout.contains("passphrase does not open"), "\(wrong.stdout)")
        let piped = try brados(["cache", "import", protected.path, "--as", "from-passphrase", "--passphrase-stdin"], server, stdin: "correct horse\n")
        #expect(piped.status == 0, "\(piped.stderr)")
        // Without a terminal (its own session: no controlling tty) or --passphrase-stdin: said so, exit 12.
        let none = try SystemCommand.run("setsid", ["-w", BuiltProducts.url("brados").path, "cache", "verify", protected.path], environment: environment(server))
        #expect(none.status == 12 && none.stderr.contains("--passphrase-stdin"), "\(none.stderr)")

        // brados --passphrase: asked twice on the terminal (a mismatch refused), opened by brados with the passphrase.
        let mine = home.url.appendingPathComponent("mine.age")
        let mismatch = try onTerminal(["one", "two"], [BuiltProducts.url("brados").path, "cache", "export", "--passphrase", "-o", mine.path], environment: environment(server))
        #expect(mismatch.status == 64 && mismatch.stdout.contains("differ") && !FileManager.default.fileExists(atPath: mine.path), "\(mismatch.stdout)")
        let exported = try onTerminal(["s3cret", "s3cret"], [BuiltProducts.url("brados").path, "cache", "export", "--passphrase", "--armor", "-o", mine.path],
                                      environment: environment(server))
        #expect(exported.status == 0, "\(exported.stdout)")
        let header = String(decoding: try Data(contentsOf: mine).prefix(300), as: UTF8.self)
        #expect(header.hasPrefix("-----BEGIN AGE ENCRYPTED FILE-----"))
        #expect(try brados(["cache", "verify", mine.path, "--passphrase-stdin"], server, stdin: "s3cret").status == 0)
        // And age opens brados's passphrase file, typed on its terminal.
        let opened = home.url.appendingPathComponent("mine.tar.zst")
        let ageOpened = try onTerminal(["s3cret"], ["age", "-d", "-o", opened.path, mine.path], environment: [:])
        let listing = try SystemCommand.run("tar", ["--zstd", "-tf", opened.path])
        #expect(ageOpened.status == 0 && listing.stdout.hasPrefix("manifest.json\n"), "\(ageOpened.stdout)")
    }

    @Test("moving a cache to another person: B's `keys show` line, A's --recipient export, B's import --as; A cannot open it (exit 12)")
    func migration() async throws {
        let server = try ServerProcess()
        try fill(server)
        let bob = home.url.appendingPathComponent("bob-home")
        let bobRecipient = try brados(["keys", "show"], server, home: bob)
        #expect(bobRecipient.status == 64 && bobRecipient.stderr.contains("brados keys generate"))
        #expect(try brados(["keys", "generate"], server, home: bob).status == 0)
        let line = try brados(["keys", "show"], server, home: bob).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let recipients = home.url.appendingPathComponent("recipients.txt")
        try "# bob\n\(line)\n".write(to: recipients, atomically: true, encoding: .utf8)
        let archive = home.url.appendingPathComponent("for-bob.tar.zst.age")
        let export = try brados(["cache", "export", "--recipients-file", recipients.path, "-o", archive.path], server)
        #expect(export.status == 0, "\(export.stderr)")
        let refused = try brados(["cache", "verify", archive.path], server)
        #expect(refused.status == 12 && refused.stderr.contains("no key was given"), "\(refused.stderr)")
        let imported = try brados(["cache", "import", archive.path, "--as", "alice"], server, home: bob)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try brados(["--offline", "--profile", "alice", "coach", "--json"], server, home: bob).status == 0)
        // Bad flags: a passphrase goes alone; --armor needs encryption; a recipient that is not one.
        #expect(try brados(["cache", "export", "--passphrase", "--recipient", line], server).status == 64)
        #expect(try brados(["cache", "export", "--armor"], server).status == 64)
        let bad = try brados(["cache", "export", "--recipient", "age1nope", "-o", home.url.appendingPathComponent("x.age").path], server)
        #expect(bad.status == 64 && bad.stderr.contains("--recipient"), "\(bad.stderr)")
    }

    @Test("an encrypted export creates no file but the archive: database copies go to memory (strace; a plain export, as a control, stages one)")
    func noPlaintextOnDisk() async throws {
        let server = try ServerProcess()
        try fill(server)
        #expect(try brados(["keys", "generate"], server).status == 0)
        func created(_ arguments: [String]) throws -> [String] {
            let trace = home.url.appendingPathComponent("trace-\(UUID().uuidString).txt")
            let result = try SystemCommand.run("strace", ["-f", "-qq", "-e", "trace=open,openat,creat,rename,renameat,renameat2,link,linkat,memfd_create", "-o", trace.path,
                                             BuiltProducts.url("brados").path] + arguments, environment: environment(server))
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").map(String.init)
                .filter { $0.contains("O_CREAT") || $0.contains("O_TMPFILE") || $0.contains("memfd_create") || $0.contains("rename") || $0.contains("link") }
        }
        let encrypted = try created(["cache", "export", "--encrypt", "-o", home.url.appendingPathComponent("e.age").path])
        #expect(encrypted.contains { $0.contains("memfd_create") }, "\(encrypted)")
        // Nothing made in the export's staging folder but its lock; the only other new file is
        // the archive itself (an unnamed O_TMPFILE, linked once whole).
        // Everything else it creates is a lock, the empty staging marker, SQLite's -wal/-shm of
        // the profile's own databases, the unnamed archive (O_TMPFILE, linked once whole) or the
        // export hash cache.
        let unexpected = encrypted.filter { line in
            !(line.contains(".lock\"") || line.contains("/.staging-in-use\"") || line.contains("-wal\"") || line.contains("-shm\"") || line.contains("memfd_create")
              || line.contains("O_TMPFILE") || line.contains(".export-hashes.json") || line.contains("linkat(") && line.contains("/proc/self/fd/"))
        }
        #expect(unexpected.isEmpty, "\(unexpected)")
        let plain = try created(["cache", "export", "-o", home.url.appendingPathComponent("p.tar.zst").path])
        #expect(plain.contains { $0.contains("/.staging/") && $0.contains(".sqlite") && $0.contains("O_CREAT") }, "the control stages a database copy: \(plain)")
    }

    @Test("tampering: a flipped byte in the header, a middle chunk or the last chunk, a truncated file, an appended byte: refused, nothing imported")
    func tampering() async throws {
        let server = try ServerProcess()
        try fill(server)
        #expect(try brados(["keys", "generate"], server).status == 0)
        let archive = home.url.appendingPathComponent("good.tar.zst.age")
        #expect(try brados(["cache", "export", "--encrypt", "-o", archive.path], server).status == 0)
        let good = try Data(contentsOf: archive)
        let headerEnd = try #require(good.range(of: Data("\n---".utf8))?.upperBound)
        let payloadStart = try #require(good[headerEnd...].firstIndex(of: 0x0A)) + 1 + 16
        let chunk = 65_536 + 16
        #expect(good.count - payloadStart > 3 * chunk, "the archive must span several chunks: \(good.count) bytes")
        // A target with data of its own, which must come out unchanged.
        #expect(try brados(["cache", "import", archive.path, "--as", "target"], server).status == 0)
        #expect(try brados(["--profile", "target", "--offline", "visits", "list"], server).status == 0)
        let before = try snapshot("target")
        #expect(!before.isEmpty)

        func flipped(_ offset: Int) -> Data { var data = good; data[offset] ^= 0x01; return data }
        let cases: [(String, Data)] = [
            ("header", flipped(headerEnd + 5)),
            ("middle chunk", flipped(payloadStart + chunk + 1_000)),
            ("last chunk", flipped(good.count - 3)),
            ("truncated", good.prefix(payloadStart + 2 * chunk)),
            ("appended byte", good + Data([0])),
        ]
        for (name, bytes) in cases {
            let file = home.url.appendingPathComponent("tampered.age")
            try bytes.write(to: file)
            let verify = try brados(["cache", "verify", file.path], server)
            #expect(verify.status == 8, "\(name): verify \(verify.status) \(verify.stderr)")
            let imported = try brados(["cache", "import", file.path, "--as", "target", "--replace"], server)
            #expect(imported.status == 8 && imported.stderr.contains("Nothing was imported"), "\(name): import \(imported.status) \(imported.stderr)")
            #expect(try snapshot("target") == before, "\(name): the target changed")
        }
        // A damaged recipient line cannot be told from a wrong key (as with age): exit 12, nothing imported.
        // Another valid base64 character inside the share (not its last, whose spare bits must be
        // zero): another point, so the key no longer matches (a flipped bit could instead make it
        // invalid base64, a malformed header: exit 8).
        let stanza = try #require(good.range(of: Data("-> X25519 ".utf8))?.upperBound)
        let file = home.url.appendingPathComponent("tampered.age")
        var damaged = good
        damaged[stanza + 3] = damaged[stanza + 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try damaged.write(to: file)
        let recipientLine = try brados(["cache", "import", file.path, "--as", "target", "--replace"], server)
        #expect(recipientLine.status == 12 && recipientLine.stderr.contains("header was damaged"), "\(recipientLine.stderr)")
        #expect(try snapshot("target") == before)
        // The intact file still imports.
        #expect(try brados(["cache", "import", archive.path, "--as", "target", "--replace"], server).status == 0)
    }

    @Test("the encrypted file is read to its end after the tar end: a cut in the padding after it is still refused")
    func readToTheEnd() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["mealplan", "show"], server).status == 0)
        let recipient = try brados(["keys", "generate"], server).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // A plain tar (brados reads uncompressed tar too) with 1 MiB of zeros after its end:
        // libarchive stops at the tar end, long before the last chunks.
        let compressed = home.url.appendingPathComponent("small.tar.zst")
        #expect(try brados(["cache", "export", "-o", compressed.path], server).status == 0)
        let tar = home.url.appendingPathComponent("small.tar")
        #expect(try SystemCommand.run("zstd", ["-d", "-q", "-f", compressed.path, "-o", tar.path]).status == 0)
        try (try Data(contentsOf: tar) + Data(count: 1 << 20)).write(to: tar)
        let encrypted = home.url.appendingPathComponent("padded.age")
        #expect(try SystemCommand.run("age", ["-r", recipient, "-o", encrypted.path, tar.path]).status == 0)
        #expect(try brados(["cache", "verify", encrypted.path], server).status == 0)
        let cut = home.url.appendingPathComponent("cut.age")
        try Data(try Data(contentsOf: encrypted).dropLast(100)).write(to: cut)
        let verify = try brados(["cache", "verify", cut.path], server)
        #expect(verify.status == 8 && verify.stderr.contains("chunk"), "\(verify.stderr)")
        #expect(try brados(["cache", "import", cut.path, "--as", "cut"], server).status == 8)
        #expect(try snapshot("cut").isEmpty)
    }
}
