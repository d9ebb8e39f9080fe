import BradOSErrors
@testable import BradOSNetworking
import Foundation
import TestSupport
import Testing

@Suite("Retry policy")
struct RetryTests {
    let base = URL(string: "http://127.0.0.1:9")!

    func client(_ transport: StubTransport, clock: ManualClock) -> APIClient {
        APIClient(service: .account, baseURL: base, transport: transport, authenticator: nil,
                  retrier: Retrier(clock: clock, random: { 0.5 }))
    }

    @Test("503 twice then 200 succeeds after exactly 2 retries, waiting 1 s then 2 s")
    func retriesTransientFailures() async throws {
        let clock = ManualClock()
        let transport = StubTransport(sequence: [.success(.json("{}", status: 503)), .success(.json("{}", status: 503)), .success(.json("{\"ok\":true}"))])
        let response = try await client(transport, clock: clock).send(.get("/api/x"))
        #expect(response.status == 200)
        #expect(transport.requests.count == 3)
        #expect(clock.sleeps == [.seconds(1), .seconds(2)])
    }

    @Test("at most 3 retries, backoff 1, 2, 4 s, then the last error")
    func givesUpAfterThreeRetries() async throws {
        let clock = ManualClock()
        let transport = StubTransport(sequence: [.success(.json("{}", status: 500))])
        await #expect(throws: NetworkError.self) { try await client(transport, clock: clock).send(.get("/api/x")) }
        #expect(transport.requests.count == 4)
        #expect(clock.sleeps == [.seconds(1), .seconds(2), .seconds(4)])
    }

    @Test("other 4xx are never retried", arguments: [400, 403, 404, 409, 422])
    func noRetryOn4xx(status: Int) async throws {
        let clock = ManualClock()
        let transport = StubTransport(sequence: [.success(.json("{}", status: status))])
        do {
            _ = try await client(transport, clock: clock).send(.get("/api/x"))
            Issue.record("expected a failure")
        } catch let error as NetworkError {
            #expect(!error.isRetryable)
        }
        #expect(transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test("a status the policy never retries is asked once, though its class is retried; the others still are")
    func neverRetriedStatuses() async throws {
        let clock = ManualClock()
        let transport = StubTransport(sequence: [.success(.json("{}", status: 503))])
        var request = APIRequest.get("/api/x")
        request.retry = RetryPolicy(neverRetriedStatuses: [503])
        await #expect(throws: NetworkError.self) { try await client(transport, clock: clock).send(request) }
        #expect(transport.requests.count == 1 && clock.sleeps.isEmpty)
        let other = StubTransport(sequence: [.success(.json("{}", status: 502)), .success(.json("{}"))])
        _ = try await client(other, clock: clock).send(request)
        #expect(other.requests.count == 2)
    }

    @Test("429 honours Retry-After instead of the backoff")
    func honoursRetryAfter() async throws {
        let clock = ManualClock()
        let transport = StubTransport(sequence: [.success(.json("{}", status: 429, headers: [("Retry-After", "7")])), .success(.json("{}"))])
        _ = try await client(transport, clock: clock).send(.get("/api/x"))
        #expect(clock.sleeps == [.seconds(7)])
    }

    @Test("connection failures are retried; offline mode is not")
    func connectionFailures() async throws {
        let clock = ManualClock()
        let refused = StubTransport(sequence: [.failure(.unreachable(host: "h", reason: "connection refused")), .success(.json("{}"))])
        _ = try await client(refused, clock: clock).send(.get("/x"))
        #expect(refused.requests.count == 2)
        let offline = StubTransport(sequence: [.failure(.offlineMode)])
        await #expect(throws: NetworkError.offlineMode) { try await client(offline, clock: clock).send(.get("/x")) }
        #expect(offline.requests.count == 1)
    }

    @Test("backoff is capped at 10 s and jitter stays within ±20 %")
    func backoffBounds() {
        let policy = RetryPolicy.standard
        #expect(policy.delay(beforeRetry: 0, random: 0.5) == .seconds(1))
        #expect(policy.delay(beforeRetry: 3, random: 0.5) == .seconds(8))
        #expect(policy.delay(beforeRetry: 4, random: 0.5) == .seconds(10))
        #expect(policy.delay(beforeRetry: 9, random: 1) == .seconds(10))
        #expect(policy.delay(beforeRetry: 1, random: 0) == .milliseconds(1600))
        #expect(policy.delay(beforeRetry: 1, random: 1) == .milliseconds(2400))
    }

    @Test("a wait that would pass the operation limit ends the operation")
    func operationLimit() async throws {
        let clock = ManualClock()
        let transport = StubTransport(sequence: [.success(.json("{}", status: 503, headers: [("Retry-After", "400")]))])
        // The server's own wait does not fit: its answer at once, not brados's time-out.
        await #expect(throws: NetworkError.http(status: 503, method: "GET", path: "/x", message: nil, retryAfter: .seconds(400))) {
            try await client(transport, clock: clock).send(.get("/x"))
        }
        #expect(clock.sleeps.isEmpty)
    }

    @Test("one rule for a 429 in every domain: a Retry-After that fits what is left of the budget is waited; one that does not is exit 9 at once, with the wait")
    func rateLimitRule() async throws {
        for (waits, expectedSleeps) in [(["400"], [Duration]()), (["120", "120", "120"], [.seconds(120), .seconds(120)])] {
            let clock = ManualClock()
            let transport = StubTransport { _, _ in .json("{}", status: 429, headers: [("Retry-After", waits[0])]) }
            do {
                _ = try await client(transport, clock: clock).send(.get("/x"))
                Issue.record("a 429 that never ends answered")
            } catch let error as NetworkError {
                #expect(error.retryAfter == .seconds(Int64(waits[0])!), "\(error)")
                #expect(error.kind == .rateLimited, "exit 9: \(error)")
                #expect(error.recovery?.contains("wait") == true)
            }
            // 120 s fits twice in 300 s (after 240 s a third does not): then exit 9 at once, never "gave up after 300 s".
            #expect(clock.sleeps == expectedSleeps, "\(waits)")
        }
    }

    @Test("time spent in attempts counts toward the 300 s operation limit")
    func attemptsCountTowardLimit() async throws {
        let clock = ManualClock()
        // Each attempt "takes" 149.5 s: after two attempts and a 1 s wait, a 2 s wait would pass 300 s.
        let transport = StubTransport { _, _ in
            clock.advance(by: .milliseconds(149_500))
            return .json("{}", status: 503)
        }
        await #expect(throws: NetworkError.operationTimedOut(seconds: 300)) {
            try await client(transport, clock: clock).send(.get("/x"))
        }
        #expect(transport.requests.count == 2)
        #expect(clock.sleeps == [.seconds(1)])
    }

    /// A transport that holds every request until the task is cancelled (a server that never answers).
    struct Holding: HTTPTransport {
        let arrived: Locked<Int>
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            arrived.withLock { $0 += 1 }
            try await Task.sleep(for: .seconds(3600))
            throw CancellationError()
        }
    }

    @Test("a write interrupted after it was sent is an unknown outcome (exit 130); a read, or a write cancelled before it left, is a plain interruption")
    func interruptedWrites() async throws {
        for (request, unknown) in [(APIRequest.delete("/api/visits/v_1"), true), (.get("/api/visits"), false)] {
            let arrived = Locked(0)
            let client = APIClient(service: .account, baseURL: base, transport: Holding(arrived: arrived), authenticator: nil)
            let task = Task { try await client.send(request) }
            #expect(await eventually { arrived.value == 1 })
            task.cancel()
            let result = await task.result
            if unknown {
                #expect(throws: NetworkError.interruptedWrite(method: "DELETE", path: "/api/visits/v_1", host: "127.0.0.1:9")) { try result.get() }
                #expect(NetworkError.interruptedWrite(method: "DELETE", path: "/x", host: "h").kind == .interrupted, "exit 130")
            } else {
                #expect(throws: CancellationError.self) { try result.get() }
            }
        }
        // Cancelled before anything was sent: nothing can have been applied.
        let untouched = Locked(0)
        let early = Task {
            try await Task.sleep(for: .seconds(3600))
            return try await APIClient(service: .account, baseURL: base, transport: Holding(arrived: untouched), authenticator: nil).send(.delete("/x"))
        }
        early.cancel()
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(untouched.value == 0)
    }

    @Test("a malformed body is an invalid response naming the field, not retried")
    func invalidResponse() async throws {
        struct Shape: Decodable { var name: String }
        let transport = StubTransport(sequence: [.success(.json("{\"other\":1}"))])
        await #expect(throws: NetworkError.invalidResponse(path: "/x", detail: "missing field 'name'")) {
            try await client(transport, clock: ManualClock()).decode(Shape.self, .get("/x"))
        }
        #expect(transport.requests.count == 1)
    }
    @Test("a write whose answer was lost has an unknown outcome: a POST is not sent again, a DELETE is, and either ends 'not known' (exit 6)")
    func lostAnswers() async throws {
        let lost = NetworkError.connectionLost(host: "127.0.0.1:9", reason: "the response was cut off")
        // A POST that may have created something: one attempt, then the outcome is unknown.
        let post = StubTransport(sequence: [.failure(lost), .success(.json("{}"))])
        do {
            _ = try await client(post, clock: ManualClock()).send(try .json("POST", "/api/visits", body: ["place": "x"]))
            Issue.record("a POST whose answer was lost does not succeed by being sent again")
        } catch let NetworkError.interruptedWrite(method, _, _, reason) {
            #expect(method == "POST" && reason?.contains("was lost") == true, "\(String(describing: reason))")
        }
        #expect(post.requests.count == 1, "never sent twice")
        #expect(NetworkError.interruptedWrite(method: "POST", path: "/x", host: "h", lost: "gone").kind == .server)
        #expect(NetworkError.interruptedWrite(method: "POST", path: "/x", host: "h").kind == .interrupted, "Ctrl-C stays 130")
        // A DELETE is tried again; whatever the next attempt says, the first one's outcome is not known.
        let delete = StubTransport(sequence: [.failure(lost), .success(.json("{}", status: 404))])
        await #expect(throws: NetworkError.self) { _ = try await client(delete, clock: ManualClock()).send(.delete("/api/visits/v1")) }
        do { _ = try await client(StubTransport(sequence: [.failure(lost), .success(.json("{}", status: 404))]), clock: ManualClock()).send(.delete("/api/visits/v1")) }
        catch let NetworkError.interruptedWrite(_, _, _, reason) { #expect(reason?.contains("was lost") == true) }
        #expect(delete.requests.count == 2)
        // A computation marked repeatable: tried again, and its own error stands.
        var generate = try APIRequest.json("POST", "/v1/plans/generate", body: ["forceRecompute": false])
        generate.repeatable = true
        let repeated = StubTransport(sequence: [.failure(lost), .success(.json("{}"))])
        #expect(try await client(repeated, clock: ManualClock()).send(generate).status == 200 && repeated.requests.count == 2)
        do { _ = try await client(StubTransport(sequence: [.failure(lost)]), clock: ManualClock()).send(generate) }
        catch let error as NetworkError { #expect(error.isConnectionFailure, "\(error)") }
    }
}

extension NetworkError: Equatable {
    public static func == (lhs: NetworkError, rhs: NetworkError) -> Bool { lhs.summary == rhs.summary }
}
