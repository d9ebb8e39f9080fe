import Foundation
import Synchronization

/// One HTTP request, as plain values.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// The per-request timeout: 30 s by default.
    public var timeout: Duration
    /// The largest response body accepted, in bytes (``ResponseLimit``).
    public var responseLimit: Int

    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil, timeout: Duration = .seconds(30),
                responseLimit: Int = ResponseLimit.page) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.responseLimit = responseLimit
    }

    /// The first value of a header (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// One HTTP response with its whole body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The server's clock when it answered (`Date`, an IMF-fixdate such as `Fri, 27 Nov 2026
    /// 10:00:02 GMT`), in whole Unix seconds; `nil` when absent or not in that form.
    public var serverTime: Int? {
        guard let value = header("Date") else { return nil }
        return Self.imfFixdate.withLock { $0.date(from: value) }.map { Int($0.timeIntervalSince1970) }
    }

    private static let imfFixdate = Mutex<DateFormatter>({
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }())
}

/// Sends HTTP requests. The default is ``AsyncHTTPTransport``; tests inject doubles,
/// and ``OfflineTransport`` guarantees no socket is ever opened.
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns the response, whatever its status.
    /// - Throws: ``NetworkError`` for connection-level failures only.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// Gives every request the configured timeout (`network.timeout`).
public struct TimeoutTransport: HTTPTransport {
    public let base: any HTTPTransport
    public let timeout: Duration

    public init(base: any HTTPTransport, timeout: Duration) {
        self.base = base
        self.timeout = timeout
    }

    /// Sends `request` through ``base`` with ``timeout``.
    /// - Throws: what ``base`` throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        request.timeout = timeout
        return try await base.send(request)
    }
}

/// The transport used with `--offline`: every request fails before any socket exists.
public struct OfflineTransport: HTTPTransport {
    public init() {}
    /// Fails at once: no request is sent.
    /// - Throws: ``NetworkError/offlineMode``, always.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw NetworkError.offlineMode
    }
}
