import BradOSTerminal
import Foundation
import Logging
import Synchronization

/// How an access token is attached to a request: `Authorization: Bearer` by default;
/// Plex uses `X-Plex-Token`, Supabase adds an `apikey` header.
public struct AuthScheme: Sendable {
    public var headers: @Sendable (_ token: String) -> [(name: String, value: String)]
    public init(headers: @escaping @Sendable (String) -> [(name: String, value: String)]) { self.headers = headers }
    public static let bearer = AuthScheme { [("Authorization", "Bearer \($0)")] }
}

/// A client for one service: base URL, transport, retries, auth, JSON.
///
/// A 401 triggers exactly one token renewal (see ``TokenAuthenticator``) and one replay of
/// the request; a second 401 is the authenticator's ``Authenticating/sessionExpired(profile:)``. Retryable failures
/// are retried under the ``RetryPolicy``. Thread-safe.
public struct APIClient: Sendable {
    public let service: Service
    public let baseURL: URL
    public let transport: any HTTPTransport
    public let authenticator: (any Authenticating)?
    public var authScheme: AuthScheme
    public var retrier: Retrier
    /// Headers sent with every request (e.g. Plex client identification).
    public var defaultHeaders: [(name: String, value: String)]
    public let logger: Logger
    let profile: String
    /// Told of each wait before a retry of 2 s or more, in a sentence a person reads (why,
    /// and until when): a read that must wait says so; `nil`: only the log hears of it.
    public var waitNotice: (@Sendable (String) -> Void)?
    /// Whether the wait notice says Ctrl-C stops it: a person at a terminal can (true by default).
    public var waitNoticeInterruptible = true

    public init(service: Service, baseURL: URL, transport: any HTTPTransport, authenticator: (any Authenticating)?,
                authScheme: AuthScheme = .bearer, retrier: Retrier = Retrier(), defaultHeaders: [(name: String, value: String)] = [],
                logger: Logger = Logger(label: "brados.net"), profile: String = "default") {
        self.service = service
        self.baseURL = baseURL
        self.transport = transport
        self.authenticator = authenticator
        self.authScheme = authScheme
        self.retrier = retrier
        self.defaultHeaders = defaultHeaders
        self.logger = logger
        self.profile = profile
    }

    /// Sends a request and returns a 2xx response.
    /// - Throws: ``NetworkError`` (non-2xx statuses included), ``AuthError``.
    /// - Throws: ``NetworkError/interruptedWrite(method:path:host:lost:)`` when a request that
    ///   changes something was interrupted (cancelled) after it was sent and before its answer,
    ///   or an attempt of it was sent and no answer came (a POST is then not sent again).
    public func send(_ request: APIRequest) async throws -> HTTPResponse {
        var retrier = self.retrier
        if let policy = request.retry { retrier.policy = policy }
        let renewal = RenewalState()
        let flight = Flight()
        do {
            return try await retrier.run(
                onRetry: { retry, delay, error in
                    logger.info("retrying \(request.method) \(request.path) (\(retry)/\(retrier.policy.maxRetries)) in \(Format.duration(delay))",
                                metadata: ["error": "\(error.logText)"])
                    if let waitNotice, delay >= .seconds(2) {
                        waitNotice(Self.waitSentence(error, delay: delay, host: NetworkError.endpoint(baseURL), retry: retry, of: retrier.policy.maxRetries,
                                                     interruptible: waitNoticeInterruptible))
                    }
                },
                { _ in
                    do { return try await attempt(request, renewal: renewal, flight: flight) } catch let error as NetworkError where flight.sentWithoutAnswer {
                        flight.lost(Self.withoutStop(error.summary))
                        // A POST sent whose answer never came may have been applied: sent again, it
                        // could be applied twice (a second visit). Not retried: its outcome is unknown.
                        guard request.isRepeatable || !error.isConnectionFailure else {
                            throw NetworkError.interruptedWrite(method: request.method, path: request.path, host: NetworkError.endpoint(baseURL),
                                                                lost: flight.lostReason)
                        }
                        throw error
                    }
                })
        } catch is CancellationError where request.changesServer && flight.sentWithoutAnswer {
            throw NetworkError.interruptedWrite(method: request.method, path: request.path, host: NetworkError.endpoint(baseURL))
        } catch NetworkError.interruptedWrite(let method, let path, let host, let lost) {
            throw NetworkError.interruptedWrite(method: method, path: path, host: host, lost: lost)
        } catch let error as NetworkError where request.changesServer && flight.sentWithoutAnswer && request.repeatable != true {
            // An attempt was sent and its answer never came (the connection dropped, timed out):
            // whatever a later attempt said, what that one did is not known. (A request marked
            // repeatable, a computation, has nothing to settle: its own error stands.)
            throw NetworkError.interruptedWrite(method: request.method, path: request.path, host: NetworkError.endpoint(baseURL),
                                                lost: flight.lostReason ?? Self.withoutStop(error.summary))
        }
    }

    /// A sentence without its full stop, to stand in brackets in another.
    static func withoutStop(_ text: String) -> String { text.hasSuffix(".") ? String(text.dropLast()) : text }

    /// Sends a request and decodes its JSON body.
    /// - Throws: ``NetworkError/invalidResponse(path:detail:)`` when the body does not decode, and what ``send(_:)`` throws.
    public func decode<T: Decodable>(_ type: T.Type, _ request: APIRequest) async throws -> T {
        try await decodeAnswer(type, request).value
    }

    /// Sends a request and decodes its JSON body, keeping the response (its headers).
    /// - Throws: as ``decode(_:_:)``.
    public func decodeAnswer<T: Decodable>(_ type: T.Type, _ request: APIRequest) async throws -> (value: T, response: HTTPResponse) {
        let response = try await send(request)
        do {
            return (try JSONCoding.decode(T.self, from: response.body), response)
        } catch {
            throw NetworkError.undecodable(path: request.path, error)
        }
    }

    private func attempt(_ request: APIRequest, renewal: RenewalState, flight: Flight) async throws -> HTTPResponse {
        var token: String? = nil
        if request.authenticated, let authenticator { token = try await authenticator.accessToken() }
        var response = try await perform(request, token: token, flight: flight)
        if response.status == 401, request.authenticated, let authenticator, let rejected = token {
            // One renewal per operation. A renewal that failed (server down) did not spend the
            // refresh token, so a retry may renew again instead of saying "sign in again".
            guard await !renewal.hasRenewed else { throw authenticator.sessionExpired(profile: profile) }
            let renewed = try await authenticator.renewToken(replacing: rejected)
            await renewal.markRenewed()
            response = try await perform(request, token: renewed, flight: flight)
            if response.status == 401 { throw authenticator.sessionExpired(profile: profile) }
        }
        guard (200..<300).contains(response.status) else {
            throw NetworkError.http(
                status: response.status, method: request.method, path: request.path,
                message: Self.serverMessage(response.body), retryAfter: Self.retryAfter(response))
        }
        return response
    }

    private func perform(_ request: APIRequest, token: String?, flight: Flight) async throws -> HTTPResponse {
        var headers = defaultHeaders + [("Accept", "application/json"), ("User-Agent", "brados/\(BradOSVersion.current)")]
        if let token { headers += authScheme.headers(token) }
        headers += request.headers
        let outgoing = HTTPRequest(method: request.method, url: request.url(relativeTo: baseURL), headers: headers, body: request.body,
                                   responseLimit: request.responseLimit)
        let started = ContinuousClock.now
        // From here the server may have the request; only an answer says what it did.
        flight.sent()
        let response: HTTPResponse
        do {
            response = try await transport.send(outgoing)
        } catch let error as NetworkError {
            // Not connected: the server never had it.
            if case .unreachable = error { flight.answered() }
            throw error
        }
        flight.answered()
        logger.debug("\(request.method) \(request.path) → \(response.status)",
                     metadata: ["service": "\(service.rawValue)", "ms": "\((ContinuousClock.now - started).milliseconds)"])
        return response
    }

    /// Why a request waits before it is tried again, and for how long: "127.0.0.1:8080 asked
    /// brados to wait 2 min (rate limited); trying again in 2 min (Ctrl-C stops)." — "Ctrl-C
    /// stops" only when `interruptible` (a person at a terminal), never in a service's log.
    static func waitSentence(_ error: any Error, delay: Duration, host: String, retry: Int, of retries: Int, interruptible: Bool = true) -> String {
        let wait = NetworkError.wait(delay)
        let why: String
        switch error as? NetworkError {
        case let .http(429, _, _, _, retryAfter?)?: why = "\(host) asked brados to wait \(NetworkError.wait(retryAfter)) (rate limited)"
        case let .http(status, _, _, _, _)?: why = "\(host) answered \(status)"
        case let failure?: why = failure.summary.hasSuffix(".") ? String(failure.summary.dropLast()) : failure.summary
        case nil: why = "the request failed"
        }
        return "\(why); trying again in \(wait) (\(retry) of \(retries)\(interruptible ? "; Ctrl-C stops" : ""))."
    }

    /// The longest `Retry-After` brados takes as given; longer ones are capped to it.
    public static let longestRetryAfter: Duration = .seconds(86_400)

    /// `Retry-After` in seconds (HTTP dates are not used by the services brados speaks to).
    /// Total: only digits (RFC 9110 delay-seconds; a decimal fraction is tolerated) count, up
    /// to 32 of them, so `inf`, `nan`, `1e20`, `0x10` or a negative value are ignored and never
    /// trap; a value above a day counts as a day.
    public static func retryAfter(_ response: HTTPResponse) -> Duration? {
        guard let raw = response.header("Retry-After") else { return nil }
        let value = raw.trimmingCharacters(in: .whitespaces)
        let parts = value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !value.isEmpty, value.utf8.count <= 32, !parts[0].isEmpty,
              parts.allSatisfy({ $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
              let seconds = Double(value), seconds.isFinite else { return nil }
        let capped = min(seconds, Double(longestRetryAfter.components.seconds))
        return .milliseconds(Int64((capped * 1000).rounded(.down)))
    }

    /// A short message from a JSON error body (`error`, `message` or `msg`), if any.
    static func serverMessage(_ body: Data) -> String? {
        guard !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        for key in ["message", "error_description", "msg", "error"] {
            if let text = object[key] as? String, !text.isEmpty { return String(text.prefix(200)) }
            if let nested = object[key] as? [String: Any], let text = nested["message"] as? String { return String(text.prefix(200)) }
        }
        return nil
    }

    /// A short description of a decoding failure (which field, what was wrong).
    public static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case let .keyNotFound(key, context)?: "missing field '\(Self.path(context.codingPath + [key]))'"
        case let .typeMismatch(_, context)?: "wrong type at '\(Self.path(context.codingPath))'"
        case let .valueNotFound(_, context)?: "null at '\(Self.path(context.codingPath))'"
        case let .dataCorrupted(context)?: context.codingPath.isEmpty ? "not valid JSON" : "invalid value at '\(Self.path(context.codingPath))'"
        default: "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

/// Whether an attempt of one operation was handed to the transport and had no answer yet: a
/// write interrupted then may have been applied. Sticky: an answer to a later attempt does
/// not tell what an earlier unanswered one did.
final class Flight: Sendable {
    private let state = Mutex((inFlight: false, unanswered: false, lost: String?.none))
    /// Why the first attempt that went unanswered got no answer (a dropped connection, a timeout).
    func lost(_ reason: String) { state.withLock { $0.lost = $0.lost ?? reason } }
    var lostReason: String? { state.withLock { $0.lost } }
    func sent() {
        state.withLock { state in
            // An earlier attempt sent and never answered (it failed on the way) stays unknown.
            if state.inFlight { state.unanswered = true }
            state.inFlight = true
        }
    }
    func answered() { state.withLock { $0.inFlight = false } }
    /// Whether some attempt was sent and never answered.
    var sentWithoutAnswer: Bool { state.withLock { $0.inFlight || $0.unanswered } }
}

/// Ensures one successful renewal per operation, however many retries it takes.
actor RenewalState {
    private(set) var hasRenewed = false
    func markRenewed() { hasRenewed = true }
}
