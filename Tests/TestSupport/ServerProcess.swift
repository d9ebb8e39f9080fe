import BradOSCore
import BradOSErrors
import BradOSNetworking
import Foundation

/// A real `brados-server` process on a free loopback port, with admin routes on.
/// It lives as long as the test that started it (however long that takes: never by the clock)
/// and never longer: it exits when its standard input, a pipe this process holds, closes.
public final class ServerProcess: @unchecked Sendable {
    // `process` is only touched from the creating test and `stop()`, never concurrently.
    private let process: Process
    /// The server's standard input: open for as long as this process runs.
    private let lifeline = Pipe()
    public let url: URL
    private let transport = AsyncHTTPTransport()

    /// Starts the server and waits until it listens.
    /// - Throws: when it does not start within 30 s.
    /// - Parameter port: 0 (the default) for any free one; another to start a server again where one was.
    public init(dataDirectory: URL? = nil, port: Int = 0, extraArguments: [String] = []) throws {
        OwnThread.mayBlock("starting brados-server")
        process = Process()
        process.executableURL = BuiltProducts.url("brados-server")
        var arguments = ["--port", String(port), "--admin", "--until-stdin-closes"]
        if let dataDirectory { arguments += ["--data-dir", dataDirectory.path] }
        process.arguments = arguments + extraArguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = lifeline
        // Only this process holds the write end: a server started meanwhile by another test
        // must not inherit it (it would keep this one alive as long as itself).
        _ = fcntl(lifeline.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        try process.run()
        // Read the "listening on URL" line.
        var line = Data()
        let handle = out.fileHandleForReading
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { break }
            if byte == Data([0x0A]) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "http://"), let url = URL(string: String(text[range.lowerBound...])) else {
            process.terminate()
            throw CommandError("brados-server did not start: '\(text)'")
        }
        self.url = url
    }

    deinit { stop() }

    /// Stops the server at once (SIGKILL, like a crash or a pulled cable) and waits for it.
    /// SIGTERM is not used: a test runner may hand its children a blocked SIGTERM.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// `GET /_admin/stats`: requests, in all and by route, and response body bytes.
    public func stats() async throws -> (total: Int, byRoute: [String: Int], bytes: Int) {
        struct Stats: Decodable { var total: Int; var byRoute: [String: Int]; var bytes: Int }
        let response = try await transport.send(HTTPRequest(method: "GET", url: url.appendingPathComponent("_admin/stats")))
        let stats = try JSONDecoder().decode(Stats.self, from: response.body)
        return (stats.total, stats.byRoute, stats.bytes)
    }

    /// `DELETE /_admin/stats`.
    public func resetStats() async throws {
        _ = try await transport.send(HTTPRequest(method: "DELETE", url: url.appendingPathComponent("_admin/stats")))
    }

    /// `POST /_admin/faults` with a JSON rule.
    public func addFault(_ json: String) async throws {
        _ = try await transport.send(HTTPRequest(
            method: "POST", url: url.appendingPathComponent("_admin/faults"),
            headers: [("Content-Type", "application/json")], body: Data(json.utf8)))
    }

    /// `POST /_admin/realtime-faults` with a JSON fault (`{"kind": "lose", "count": 1}`).
    public func addRealtimeFault(_ json: String) async throws {
        _ = try await transport.send(HTTPRequest(
            method: "POST", url: url.appendingPathComponent("_admin/realtime-faults"),
            headers: [("Content-Type", "application/json")], body: Data(json.utf8)))
    }

    /// `GET /_admin/realtime-channels`: how many Realtime channels are joined now.
    public func realtimeChannels() async throws -> Int {
        let response = try await transport.send(HTTPRequest(method: "GET", url: url.appendingPathComponent("_admin/realtime-channels")))
        return (try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["channels"] as? Int ?? 0
    }

    /// `POST /_admin/expire-tokens`: every access token expires now (refresh tokens stay valid).
    public func expireAccessTokens() async throws {
        _ = try await transport.send(HTTPRequest(method: "POST", url: url.appendingPathComponent("_admin/expire-tokens")))
    }

    /// Any request to the server (plex.tv routes, admin routes): a second client, as a test drives it.
    public func request(_ method: String, _ pathAndQuery: String, headers: [(name: String, value: String)] = [], form: [String: String]? = nil,
                        body: Data? = nil) async throws -> HTTPResponse {
        var headers = headers
        var body = body
        if let form {
            var components = URLComponents()
            components.queryItems = form.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            body = Data((components.percentEncodedQuery ?? "").utf8)
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        }
        return try await transport.send(HTTPRequest(method: method, url: URL(string: url.absoluteString + pathAndQuery)!, headers: headers, body: body))
    }

    /// A plex.tv account token for `user` (password = user name on the demo seed), as a Plex app would hold.
    public func plexToken(_ user: String = "demo") async throws -> String {
        let response = try await request("POST", "/api/v2/users/signin", headers: [("Accept", "application/json"), ("X-Plex-Client-Identifier", "test-client")],
                                         form: ["login": user, "password": user])
        struct User: Decodable { var authToken: String }
        return try JSONDecoder().decode(User.self, from: response.body).authToken
    }

    /// `POST /_admin/sql`: runs one statement on the server's database (another client's
    /// change, or a read of what the server holds); returns its rows.
    @discardableResult
    public func sql(_ statement: String, _ arguments: [String?] = []) async throws -> [[Any]] {
        let body = try JSONSerialization.data(withJSONObject: ["sql": statement, "arguments": arguments.map { $0 ?? NSNull() as Any }])
        let response = try await transport.send(HTTPRequest(
            method: "POST", url: url.appendingPathComponent("_admin/sql"), headers: [("Content-Type", "application/json")], body: body))
        guard response.status == 200, let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any] else {
            throw CommandError("/_admin/sql answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return object["rows"] as? [[Any]] ?? []
    }

    /// `DELETE /_admin/faults`.
    public func clearFaults() async throws {
        _ = try await transport.send(HTTPRequest(method: "DELETE", url: url.appendingPathComponent("_admin/faults")))
    }
}
