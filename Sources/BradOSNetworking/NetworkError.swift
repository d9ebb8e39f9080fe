import AsyncHTTPClient
import BradOSErrors
import BradOSTerminal
import Foundation

/// A host that could not be reached, and why in a few words ("connection refused").
public struct Unreachable: Sendable, Equatable, Hashable {
    public var host: String
    public var reason: String

    public init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }
}

/// Failures of the networking core, each classified for retry and exit code.
public enum NetworkError: BradOSError {
    /// `--offline` (or `BRADOS_OFFLINE=1`) is set and the command needed the network.
    case offlineMode
    /// The server could not be reached: connection refused, DNS failure, connect timeout.
    case unreachable(host: String, reason: String)
    /// The request timed out after connecting.
    case timedOut(host: String)
    /// The connection dropped mid-exchange (reset, truncated body).
    case connectionLost(host: String, reason: String)
    /// The server answered with a non-success status.
    case http(status: Int, method: String, path: String, message: String?, retryAfter: Duration?)
    /// The response could not be understood (malformed JSON, wrong shape, failed validation).
    case invalidResponse(path: String, detail: String)
    /// The response held a value brados refuses to keep or show (an id outside its
    /// documented characters, see ``IdentifierRule``): bad data, not a server hiccup.
    case refusedData(path: String, detail: String)
    /// A redirect brados does not follow (https to http, a bad Location, too many hops).
    case refusedRedirect(from: String, to: String, reason: String)
    /// Retries did not succeed within the operation limit (300 s by default).
    case operationTimedOut(seconds: Int)
    /// A request that changes something (`DELETE`, `POST`…) was sent, and the command was
    /// interrupted (Ctrl-C, SIGTERM, SIGHUP) before the server answered, or (`lost`: why) the
    /// connection failed before an answer came: whether the server applied it is unknown.
    /// Never reported as undone: the domain settles it later.
    case interruptedWrite(method: String, path: String, host: String, lost: String? = nil)
    /// The response body was larger than the endpoint's limit (``ResponseLimit``): a server
    /// sending without end, or one misconfigured. A server failure, never retried: the same
    /// request would read as much again.
    case responseTooLarge(method: String, path: String, limit: Int)

    public var summary: String {
        switch self {
        case .offlineMode: "This command needs the network, and offline mode is on."
        case let .unreachable(host, reason): "Could not reach \(host) (\(reason))."
        case let .timedOut(host): "The request to \(host) timed out."
        case let .connectionLost(host, reason): "The connection to \(host) was lost (\(reason))."
        case let .http(status, method, path, message, _):
            "The server answered \(status) \(Self.reason(status)) to \(method) \(path)" + (message.map { ": \($0)" } ?? ".")
        case let .invalidResponse(path, detail): "The server's response to \(path) was not understood: \(detail)."
        case let .refusedData(path, detail): "The server's response to \(path) was refused: \(detail). Nothing from it was cached."
        case let .operationTimedOut(seconds): "Gave up after \(seconds) s of retries."
        case let .refusedRedirect(from, to, reason): "The server redirected \(from) to \(to), which brados does not follow: \(reason)."
        case let .interruptedWrite(method, path, host, nil):
            "Interrupted after \(method) \(path) was sent to \(host): whether the server applied it is not known."
        case let .interruptedWrite(method, path, host, lost?):
            "No answer came after \(method) \(path) was sent to \(host) (\(lost)): whether the server applied it is not known."
        case let .responseTooLarge(method, path, limit):
            "The server's response to \(method) \(path) was larger than \(Format.bytes(Int64(limit))), more than brados accepts for it; it was not read further."
        }
    }

    /// Status, method, path and brados's own words; never an error body's message or a
    /// decoder's account of what the server sent.
    public var logSummary: String {
        switch self {
        case let .http(status, method, path, _, _): "\(method) \(path) answered \(status) \(Self.reason(status))"
        case let .invalidResponse(path, _): "the response to \(path) was not understood"
        case let .refusedData(path, _): "the response to \(path) was refused (a value outside its rule)"
        case let .refusedRedirect(from, _, reason): "a redirect from \(from) was not followed: \(reason)"
        default: summary
        }
    }

    public var recovery: String? {
        switch self {
        case .offlineMode: "Drop --offline (or unset BRADOS_OFFLINE) to use the network."
        case .unreachable, .timedOut:
            "Check your connection and the server URL (`brados config get server`); cached data stays available with --offline."
        case .connectionLost: "The server or a proxy in between cut the answer short; try again in a moment."
        case .operationTimedOut: "Try again in a moment."
        case let .http(status, _, _, _, retryAfter):
            switch status {
            case 404: "Check the id or name you gave."
            case 403: "The account is not allowed to do this; check the profile (`brados auth status`)."
            case 429: "The server is rate limiting; wait \(retryAfter.map(Self.wait) ?? "a little") and try again."
            case 500...: "The server had a problem; try again later."
            default: "Check the values you gave."
            }
        case .invalidResponse: "The server may be newer or misconfigured; check the server URL, or report it."
        case .refusedRedirect: "Use the final address as the server URL if you trust it (`brados config set server URL`), with https."
        case .refusedData: "Check that the server URL is the one you meant (`brados config get server`) and that it is reached over https; report it if it is."
        case .interruptedWrite: "Read it again from the server (`--refresh`) to see whether it was applied."
        case .responseTooLarge: "The server may be misconfigured or sending without end; check the server URL (`brados config get server`), or report it to whoever runs the server."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .offlineMode, .unreachable, .timedOut: .offline
        case .connectionLost, .invalidResponse, .operationTimedOut, .responseTooLarge: .server
        case .refusedData: .integrity
        case .refusedRedirect: .rejected
        case .interruptedWrite(_, _, _, nil): .interrupted
        case .interruptedWrite: .server
        case let .http(status, _, _, _, _):
            switch status {
            case 401: .authRequired
            case 404, 410: .notFound
            case 429: .rateLimited
            case 500...: .server
            default: .rejected
            }
        }
    }

    /// The server could not be reached or answered nothing (refused, timed out, cut off).
    public var isConnectionFailure: Bool {
        switch self {
        case .unreachable, .timedOut, .connectionLost: true
        default: false
        }
    }

    /// The host that could not be reached at all (refused, unresolved, timed out) and why: a
    /// server that is down or away, as `sync --watch` says once and once again when it is back.
    public var unreachable: Unreachable? {
        switch self {
        case let .unreachable(host, reason): Unreachable(host: host, reason: reason)
        case let .timedOut(host): Unreachable(host: host, reason: "timed out")
        default: nil
        }
    }

    /// Connection failures, timeouts, 5xx and 429 are worth retrying; nothing else is.
    public var isRetryable: Bool {
        switch self {
        case .unreachable, .timedOut, .connectionLost: true
        case let .http(status, _, _, _, _): status >= 500 || status == 429
        case .offlineMode, .invalidResponse, .refusedData, .refusedRedirect, .operationTimedOut, .interruptedWrite, .responseTooLarge: false
        }
    }

    /// The server's `Retry-After`, if it sent one.
    public var retryAfter: Duration? {
        if case let .http(_, _, _, _, retryAfter) = self { return retryAfter }
        return nil
    }

    /// The error for a body that did not decode: ``refusedData(path:detail:)`` when it held
    /// an id outside its rule, ``invalidResponse(path:detail:)`` otherwise.
    public static func undecodable(path: String, _ error: any Error) -> NetworkError {
        if let invalid = InvalidIdentifier.found(in: error) { return .refusedData(path: path, detail: invalid.description) }
        return .invalidResponse(path: path, detail: APIClient.describe(error))
    }

    /// `host:port` as errors name a server: the URL's host and, when it gives one, its port.
    public static func endpoint(_ url: URL) -> String {
        let host = url.host ?? url.absoluteString
        let shown = host.contains(":") ? "[\(host)]" : host
        return url.port.map { "\(shown):\($0)" } ?? shown
    }

    /// Maps an AsyncHTTPClient/NIO error to a network error. A failure to connect (refused,
    /// a name that does not resolve, no route, a connect timeout) is ``unreachable(host:reason:)``
    /// (exit 5); anything after the connection was made (a dropped or truncated response, a
    /// reset, an answer HTTP cannot parse) is ``connectionLost(host:reason:)``, the server's
    /// failure (exit 6). The reason is a few words, never a library's type dump.
    static func classify(_ error: any Error, host: String) -> any Error {
        if error is CancellationError { return error }
        if let client = error as? HTTPClientError {
            switch client {
            case .cancelled: return CancellationError()
            case .connectTimeout, .socksHandshakeTimeout, .tlsHandshakeTimeout: return NetworkError.unreachable(host: host, reason: "connect timed out")
            case .deadlineExceeded, .readTimeout, .writeTimeout: return NetworkError.timedOut(host: host)
            case .remoteConnectionClosed: return NetworkError.connectionLost(host: host, reason: "closed by the server before it answered")
            default: break
            }
        }
        let (phase, reason) = describe(error)
        return phase == .connecting ? NetworkError.unreachable(host: host, reason: reason) : NetworkError.connectionLost(host: host, reason: reason)
    }

    /// When a transport error happened: before a connection was made, or after.
    enum Phase { case connecting, connected }

    /// A transport error in a few words, and whether it happened before the connection was up.
    static func describe(_ error: any Error) -> (Phase, String) {
        let text = String(describing: error)
        func has(_ words: String...) -> Bool { words.contains { text.localizedCaseInsensitiveContains($0) } }
        if has("refused") { return (.connecting, "connection refused") }
        if has("NXDOMAIN", "resolve", "dnsAError", "dnsAAAAError", "getaddrinfo") { return (.connecting, "name not resolved") }
        if has("unreachable", "no route") { return (.connecting, "no route to the host") }
        if has("connectTimeout", "connect timed out") { return (.connecting, "connect timed out") }
        if has("NIOConnectionError", "SingleConnectionFailure") { return (.connecting, "could not connect") }
        if has("reset") { return (.connected, "connection reset") }
        if has("unexpected time", "EOF", "eof", "closed", "truncated", "premature") { return (.connected, "the response was cut off") }
        if has("HTTPParserError", "invalid", "parse") { return (.connected, "the response was not valid HTTP") }
        return (.connected, "the connection failed")
    }

    /// `Retry-After` as a wait: whole seconds rounded up (`0.5` is `1 s`); past a minute in
    /// Format.age's words, rounded up to its unit (never sooner than the server said).
    static func wait(_ duration: Duration) -> String {
        let seconds = max(1, Int((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18).rounded(.up)))
        if seconds < 60 { return "\(seconds) s" }
        let unit = seconds < 3600 ? 60 : seconds < 86_400 ? 3600 : 86_400
        return Format.age(TimeInterval((seconds + unit - 1) / unit * unit))
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 422: "Unprocessable Entity"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}
