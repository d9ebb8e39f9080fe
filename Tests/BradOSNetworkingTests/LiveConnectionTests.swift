@testable import BradOSNetworking
import Foundation
import Synchronization
import Testing

/// The reconnect loop live feeds share: what ends it, what it waits for, when the wait starts over.
@Suite("Live connection: the reconnect loop")
struct LiveConnectionTests {
    struct Dropped: Error {}
    struct Fatal: Error {}

    /// Waits that never sleep: the delays are recorded, not waited (base and cap zero).
    static let noWait = RetryPolicy(baseDelay: .zero, maxDelay: .zero, jitter: 0)

    @Test("gaps are told and tried again; a connection that comes up starts the count over; done ends it; a fatal error is thrown")
    func loop() async throws {
        let script = Mutex<[Result<Bool, any Error>]>([.failure(Dropped()), .success(false), .failure(Dropped()), .success(true)])
        let told = Mutex<[String]>([])
        let previous = Mutex<[LiveConnection.Gap?]>([])
        try await LiveConnection.keep(backoff: Self.noWait, gap: { error, _ in
            if error is Fatal { throw error }
            return .init(reason: "dropped", retryAtOnce: false)
        }, reconnecting: { gap, wait in told.withLock { $0.append("\(gap.reason) \(wait)") } }) { last, connected in
            previous.withLock { $0.append(last) }
            let next = script.withLock { $0.removeFirst() }
            if case .success = next { connected() }
            return try next.get()
        }
        #expect(told.withLock { $0 } == ["dropped 0.0 seconds", "the server closed the connection 0.0 seconds", "dropped 0.0 seconds"])
        #expect(previous.withLock { $0.map { $0?.reason } } == [nil, "dropped", "the server closed the connection", "dropped"])

        await #expect(throws: Fatal.self) {
            try await LiveConnection.keep(backoff: Self.noWait, gap: { error, _ in throw error }, reconnecting: { _, _ in }) { _, _ in throw Fatal() }
        }
    }

    @Test("the wait grows with each gap since the last connection that came up, and a renewal-worthy gap is tried at once")
    func backoff() async throws {
        let policy = RetryPolicy(baseDelay: .milliseconds(1), maxDelay: .milliseconds(8), jitter: 0)
        let waits = Mutex<[Duration]>([])
        let calls = Mutex(0)
        try await LiveConnection.keep(backoff: policy, gap: { _, _ in .init(reason: "gap", retryAtOnce: calls.withLock { $0 } == 4) },
                                      reconnecting: { _, wait in waits.withLock { $0.append(wait) } }) { _, connected in
            let call = calls.withLock { $0 += 1; return $0 }
            if call == 4 { connected() }
            if call == 6 { return true }
            throw Dropped()
        }
        // 1, 2, 4 ms; connected at the 4th, so its gap is the first again, and it says "at once":
        // 0; the next is the second since that connection: 2 ms.
        #expect(waits.withLock { $0 } == [.milliseconds(1), .milliseconds(2), .milliseconds(4), .zero, .milliseconds(2)])
    }

    @Test("a gap says which host could not be reached (refused, timed out), and not a connection that dropped or a refused upgrade")
    func unreachable() {
        #expect(LiveConnection.Gap(NetworkError.unreachable(host: "127.0.0.1:8080", reason: "connection refused")).unreachable
                == Unreachable(host: "127.0.0.1:8080", reason: "connection refused"))
        #expect(LiveConnection.Gap(NetworkError.timedOut(host: "plex.example:32400")).unreachable?.host == "plex.example:32400")
        #expect(LiveConnection.Gap(NetworkError.connectionLost(host: "127.0.0.1:8080", reason: "connection reset")).unreachable == nil)
        #expect(LiveConnection.Gap(Dropped()).unreachable == nil)
    }

    @Test("a wait before a retry says Ctrl-C stops it only to a person at a terminal")
    func waitSentence() {
        let error = NetworkError.http(status: 503, method: "GET", path: "/api/visits", message: nil, retryAfter: nil)
        #expect(APIClient.waitSentence(error, delay: .seconds(3), host: "127.0.0.1:8080", retry: 2, of: 3)
                == "127.0.0.1:8080 answered 503; trying again in 3 s (2 of 3; Ctrl-C stops).")
        #expect(APIClient.waitSentence(error, delay: .seconds(3), host: "127.0.0.1:8080", retry: 2, of: 3, interruptible: false)
                == "127.0.0.1:8080 answered 503; trying again in 3 s (2 of 3).")
    }
}
