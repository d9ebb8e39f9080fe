@testable import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Testing
import TestSupport
import BradOSAuth
import BradOSNetworking
import BradOSStorage
import BradOSTerminal

/// Issue 16: what a hostile server, archive or local user supplies never runs, plants or traps.
@Suite("Security: ids, hostile headers, control characters, stores")
struct SecurityTests {
    let base = URL(string: "http://127.0.0.1:9")!

    @Test("ids: the documented character sets, nothing else (shell, option and path characters refused)")
    func identifierRules() {
        let token = IdentifierRule.token("visit id")
        for good in ["a", "visit-1", "8f5c2a64-0d7e-4a53-9d51-3f0c8d0b7a11", "A.b_c-9", String(repeating: "x", count: 128)] {
            #expect(token.isValid(good), "\(good)")
        }
        for bad in ["", "-rf", "--help", ".hidden", "..", "$(touch x)", "`id`", "a;b", "a b", "a\nb", "*", "a/b", "é",
                    "a\u{1B}b", String(repeating: "x", count: 129)] {
            #expect(!token.isValid(bad), "\(bad)")
        }
        let digits = IdentifierRule.digits("key")
        #expect(digits.isValid("12345"))
        #expect(digits.isValid(String(repeating: "9", count: 20)))
        for bad in ["", "12a", "-1", "1 2", String(repeating: "1", count: 21)] { #expect(!digits.isValid(bad)) }
    }

    struct Item: Decodable {
        var id: String
        enum CodingKeys: String, CodingKey { case id }
        init(from decoder: any Decoder) throws {
            id = try decoder.container(keyedBy: CodingKeys.self).decode(IdentifierRule.token("visit id"), forKey: .id)
        }
    }

    @Test("a server's id outside its set is refused as bad data (exit 8), not a server hiccup")
    func serverIdsAreRefused() async throws {
        let transport = StubTransport { _, _ in .json(#"[{"id":"ok-1"},{"id":"$(touch${IFS}/tmp/x)"}]"#) }
        let client = APIClient(service: .account, baseURL: base, transport: transport, authenticator: nil)
        await #expect {
            _ = try await client.decode([Item].self, .get("/api/visits"))
        } throws: { error in
            guard case .refusedData(let path, let detail)? = error as? NetworkError else { return false }
            return path == "/api/visits" && detail.contains("visit id") && ExitStatus.code(for: error) == 8
        }
        let fine = StubTransport { _, _ in .json(#"[{"id":"ok-1"}]"#) }
        let items = try await APIClient(service: .account, baseURL: base, transport: fine, authenticator: nil).decode([Item].self, .get("/api/visits"))
        #expect(items.map(\.id) == ["ok-1"])
    }

    @Test("Retry-After of inf, nan, negative, 10^20, 1e400 or text never traps; a huge value is capped to a day")
    func hostileRetryAfter() {
        func parse(_ value: String) -> Duration? { APIClient.retryAfter(HTTPResponse(status: 429, headers: [("Retry-After", value)])) }
        for value in ["inf", "-inf", "nan", "-1", "abc", "", "0x10", "1e20", "1e400", "5s", "+5", String(repeating: "9", count: 40)] {
            #expect(parse(value) == nil, "\(value)")
        }
        #expect(parse("1" + String(repeating: "0", count: 20)) == .seconds(86_400)) // 10^20
        #expect(parse(" 5 ") == .seconds(5))
        #expect(parse("0.25") == .milliseconds(250))
    }

    @Test("control characters from servers and archives are shown, not obeyed (caret notation, as gh)")
    func controlCharacters() throws {
        #expect(SafeText.visible("plain text") == "plain text")
        #expect(SafeText.visible("\u{1B}]52;c;ZXZpbA==\u{07}title") == "^[]52;c;ZXZpbA==^Gtitle")
        #expect(SafeText.visible("a\rb\u{7F}") == "a^Mb^?")
        #expect(SafeText.visible("\u{9B}2J") == "^[[2J")
        #expect(SafeText.visible("abc\u{202E}fed") == "abc<U+202E>fed")
        #expect(SafeText.visible("one\ntwo\tx", keepLines: true) == "one\ntwo\tx")
        #expect(SafeText.visible("one\ntwo") == "one^Jtwo")
        // Truncated or odd sequences never trap (ESC then m, ESC at the end, ESC [ then nothing),
        // and no escape sequence in text, brados's own colours' included, is ever kept.
        for odd in ["\u{1B}m", "a\u{1B}", "\u{1B}[", "\u{1B}[m", "\u{1B}[999m", "\u{1B}[3", "\u{1B}\u{301}[0m", "\u{1B}[0m\u{1B}[1", "\u{1B}[31m",
                    "\u{E000}31\u{E001}", "\u{E000}0000000000000000031\u{E001}", "\u{E000}"] {
            let shown = SafeText.rendered(odd, keepLines: false)
            #expect(!shown.unicodeScalars.contains("\u{1B}"), "\(shown)")
        }

        let io = CapturingIO(environment: ["CLICOLOR_FORCE": "1"], terminal: true)
        let output = Output(io: io, format: .human)
        output.line("Café \u{1B}[2J\u{1B}]0;owned\u{07} " + output.styled("ok", .green))
        output.table(Table(headers: ["PLACE"], rows: [["x\r\u{1B}[8mhidden\nnext"]]))
        output.notice("from \u{9B}31mserver")
        // A colour in a server's text is shown, not obeyed, even where brados's own are.
        output.line(output.styled("Title", .bold) + " said \u{1B}[31mred\u{1B}[0m and \u{1B}[1mbold")
        #expect(io.stdout.contains("\u{1B}[1mTitle\u{1B}[0m said ^[[31mred^[[0m and ^[[1mbold"), "\(io.stdout)")
        #expect(io.stdout.contains("Café ^[[2J^[]0;owned^G \u{1B}[32mok\u{1B}[0m"), "\(io.stdout)")
        #expect(io.stdout.contains("x^M^[[8mhidden^Jnext"), "\(io.stdout)")
        #expect(io.stderr.contains("from ^[[31mserver"))
        // Every ESC left is one of brados's own styles.
        let escapes = io.stdout.components(separatedBy: "\u{1B}").dropFirst()
        #expect(escapes.allSatisfy { $0.hasPrefix("[0m") || $0.hasPrefix("[1m") || $0.hasPrefix("[32m") })
        // Without colours (a pipe), no escape at all: a server's colour is text there too.
        let piped = CapturingIO(environment: [:], terminal: false)
        Output(io: piped, format: .human).line("said \u{1B}[31mred\u{1B}[0m")
        #expect(piped.stdout == "said ^[[31mred^[[0m\n")

        let json = CapturingIO(environment: [:])
        try Output(io: json, format: .json).json(["title": "a\u{1B}[2Jb\u{9B}c\u{202E}d"])
        #expect(!json.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B || $0.value == 0x202E })
        let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: String]
        #expect(decoded?["title"] == "a\u{1B}[2Jb\u{9B}c\u{202E}d") // the same document, escaped
    }

    @Test("a key-value store or credentials file that cannot be read is an error, never emptied and overwritten")
    func unreadableStoresAreNotOverwritten() throws {
        let dir = TemporaryDirectory()
        // A symbolic link to a folder: open() works, read() fails with EISDIR (a real I/O error, even for root).
        let folder = dir.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = dir.url.appendingPathComponent("defaults.json")
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: folder)
        let store = KeyValueStore(url: file)
        #expect(store.value(Int.self, forKey: "a") == nil)
        #expect(throws: StorageError.self) { try store.set(1, forKey: "a") }
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: file.path)) == folder.path)

        let paths = Paths.resolve(environment: ["BRADOS_HOME": dir.url.path])
        let credentials = CredentialStore(paths: paths, profile: .default)
        try FileManager.default.createDirectory(at: paths.credentialsDirectory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: credentials.url, withDestinationURL: folder)
        #expect(credentials.load().isEmpty)
        #expect(throws: StorageError.self) { _ = try credentials.loadForUpdate() }
        // Absent or undecodable: empty, as before.
        try FileManager.default.removeItem(at: credentials.url)
        #expect(try credentials.loadForUpdate().isEmpty)
        try Data("{not json".utf8).write(to: credentials.url)
        #expect(try credentials.loadForUpdate().isEmpty)
    }

    @Test("a long-running client re-checks the issuing server each time it reads the session")
    func sessionIsRecheckedAgainstItsServer() async throws {
        let dir = TemporaryDirectory()
        let paths = Paths.resolve(environment: ["BRADOS_HOME": dir.url.path])
        let store = CredentialStore(paths: paths, profile: .default)
        func save(server: String) throws {
            try store.save(CredentialSet(account: Credential(accessToken: "token-\(server.count)", refreshToken: "r", expiresAt: nil, user: "demo",
                                                             userID: "u1", server: server, obtainedAt: Date())))
        }
        try save(server: base.absoluteString)
        let authenticator = TokenAuthenticator(service: .account, store: store, account: BradOSAccountProtocol(), server: base,
                                               transport: StubTransport { _, _ in .json("{}") }, logger: Logger(label: "t"))
        #expect(try await authenticator.accessToken() == "token-\(base.absoluteString.count)")
        // Another brados signs the profile in to another server meanwhile.
        try save(server: "https://attacker.example")
        await #expect(throws: AuthError.self) { _ = try await authenticator.accessToken() }
        await #expect(throws: AuthError.self) { _ = try await authenticator.renewToken(replacing: "token-24") }
    }

    @Test("folders are created 0700 and one owned by another user is refused; a dangling link is an error, not a loop")
    func foldersAreOwned() throws {
        let dir = TemporaryDirectory()
        let dangling = dir.url.appendingPathComponent("dangling")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "/nonexistent/brados-target")
        #expect(throws: StorageError.self) { try FileSystem.createDirectory(dangling.appendingPathComponent("sub")) }
        #expect(throws: StorageError.self) { try FileSystem.createDirectory(dangling) }
        let old = umask(0)
        defer { umask(old) }
        let made = dir.url.appendingPathComponent("a/b/c")
        try FileSystem.createDirectory(made)
        for path in [made, made.deletingLastPathComponent()] {
            var info = stat()
            #expect(stat(path.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
        }
        let foreign = dir.url.appendingPathComponent("planted")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        guard chown(foreign.path, 4242, 4242) == 0 else { return } // only root can give a folder away; CI runs as root
        #expect { try FileSystem.createDirectory(foreign) } throws: { error in
            guard case .notOwned(let path, let owner)? = error as? StorageError else { return false }
            return path == foreign.path && owner == 4242
        }
        #expect(throws: StorageError.self) { try AtomicFile.write(Data("x".utf8), to: foreign.appendingPathComponent("f")) }
        #expect(!FileManager.default.fileExists(atPath: foreign.appendingPathComponent("f").path))
        // Nor is a folder made inside another user's folder (it could be swapped out).
        #expect(throws: StorageError.self) { try FileSystem.createDirectory(foreign.appendingPathComponent("inner/deeper")) }
        #expect(!FileManager.default.fileExists(atPath: foreign.appendingPathComponent("inner").path))
    }

    @Test("redirects: never https to http; credentials only to their origin; 303 becomes GET; 307 keeps the body")
    func redirectPolicy() throws {
        let original = HTTPRequest(method: "POST", url: URL(string: "https://plex.example:32400/library?x=1")!,
                                   headers: [("X-Plex-Token", "secret"), ("apikey", "anon"), ("Authorization", "Bearer t"), ("Accept", "application/json"),
                                             ("Content-Type", "application/json")],
                                   body: Data("{}".utf8))
        #expect(throws: NetworkError.self) { try RedirectPolicy.follow(original, original: original, status: 302, location: "http://plex.example:32400/library") }
        #expect(throws: NetworkError.self) { try RedirectPolicy.follow(original, original: original, status: 302, location: "file:///etc/passwd") }
        #expect(throws: NetworkError.self) { try RedirectPolicy.follow(original, original: original, status: 302, location: nil) }
        #expect(try RedirectPolicy.follow(original, original: original, status: 200, location: "https://x") == nil)

        let elsewhere = try #require(try RedirectPolicy.follow(original, original: original, status: 307, location: "https://cdn.example/art"))
        #expect(elsewhere.url.absoluteString == "https://cdn.example/art" && elsewhere.method == "POST" && elsewhere.body != nil)
        #expect(elsewhere.headers.map { $0.name.lowercased() }.sorted() == ["accept", "content-type"])
        let otherPort = try #require(try RedirectPolicy.follow(original, original: original, status: 308, location: "https://plex.example:8443/x"))
        #expect(otherPort.header("X-Plex-Token") == nil)
        let samePlace = try #require(try RedirectPolicy.follow(original, original: original, status: 303, location: "/library/next"))
        #expect(samePlace.url.absoluteString == "https://plex.example:32400/library/next" && samePlace.method == "GET" && samePlace.body == nil)
        #expect(samePlace.header("X-Plex-Token") == "secret" && samePlace.header("Content-Type") == nil)
    }

    /// A one-shot HTTP server on 127.0.0.1 that records the request headers it gets.
    final class CaptureServer: @unchecked Sendable {
        let fd: Int32
        let port: Int
        private(set) var request = ""
        private let done = DispatchSemaphore(value: 0)

        init(response: String) throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            fd = listener
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            listen(listener, 4)
            var bound = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
            port = Int(UInt16(bigEndian: bound.sin_port))
            Thread.detachNewThread { [self] in
                let client = accept(listener, nil, nil)
                var buffer = [UInt8](repeating: 0, count: 65536)
                let count = read(client, &buffer, buffer.count)
                request = String(decoding: buffer[0..<max(count, 0)], as: UTF8.self)
                _ = response.withCString { write(client, $0, strlen($0)) }
                close(client)
                done.signal()
            }
        }

        func wait() -> String { _ = done.wait(timeout: .now() + 10); close(fd); return request }
    }

    @Test("the transport follows a redirect to another origin without the credential headers")
    func transportDropsCredentialsAcrossOrigins() async throws {
        let final = try CaptureServer(response: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        let first = try CaptureServer(response: "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:\(final.port)/landing\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        let request = HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1:\(first.port)/library")!,
                                  headers: [("X-Plex-Token", "plex-secret"), ("apikey", "anon-secret"), ("Authorization", "Bearer tok"), ("Accept", "application/json")])
        let response = try await AsyncHTTPTransport().send(request)
        #expect(response.status == 200)
        let sentFirst = first.wait(), sentFinal = final.wait()
        #expect(sentFirst.contains("plex-secret"))
        #expect(sentFinal.hasPrefix("GET /landing"))
        for secret in ["plex-secret", "anon-secret", "Bearer tok"] { #expect(!sentFinal.contains(secret), "\(secret) went to another origin") }
    }
}
