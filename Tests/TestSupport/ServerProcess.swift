import BradOSCore
import Foundation

/// A real `brados-server` process on a free loopback port, with admin routes on.
/// It exits by itself after `lifetime` seconds even if a test forgets to stop it.
public final class ServerProcess: @unchecked Sendable {
    // `process` is only touched from the creating test and `stop()`, never concurrently.
    private let process: Process
    public let url: URL
    private let transport = AsyncHTTPTransport()

    /// Starts the server and waits until it listens.
    /// - Throws: when it does not start within 30 s.
    public init(dataDirectory: URL? = nil, extraArguments: [String] = [], lifetime: Int = 300) throws {
        process = Process()
        process.executableURL = BuiltProducts.url("brados-server")
        var arguments = ["--port", "0", "--admin", "--lifetime", "\(lifetime)"]
        if let dataDirectory { arguments += ["--data-dir", dataDirectory.path] }
        process.arguments = arguments + extraArguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
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

    /// `GET /_admin/stats`.
    public func stats() async throws -> (total: Int, byRoute: [String: Int]) {
        struct Stats: Decodable { var total: Int; var byRoute: [String: Int] }
        let response = try await transport.send(HTTPRequest(method: "GET", url: url.appendingPathComponent("_admin/stats")))
        let stats = try JSONDecoder().decode(Stats.self, from: response.body)
        return (stats.total, stats.byRoute)
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

    /// `POST /_admin/expire-tokens`: every access token expires now (refresh tokens stay valid).
    public func expireAccessTokens() async throws {
        _ = try await transport.send(HTTPRequest(method: "POST", url: url.appendingPathComponent("_admin/expire-tokens")))
    }

    /// `DELETE /_admin/faults`.
    public func clearFaults() async throws {
        _ = try await transport.send(HTTPRequest(method: "DELETE", url: url.appendingPathComponent("_admin/faults")))
    }
}
