import ArgumentParser
import BradOSAuth
@testable import BradOSCore
import BradOSErrors
import BradOSNetworking
import BradOSStorage
import Testing

@Suite("Errors map to exit codes in one place")
struct ErrorMapTests {
    @Test("each failure kind has its documented code")
    func kinds() {
        let expected: [FailureKind: Int32] = [
            .general: 1, .notFound: 3, .authRequired: 4, .offline: 5, .server: 6, .rejected: 7, .integrity: 8, .rateLimited: 9, .diskFull: 10, .busy: 11, .decryption: 12, .keyring: 13, .refused: 14, .usage: 64, .interrupted: 130,
        ]
        for kind in FailureKind.allCases { #expect(ExitStatus.code(for: kind) == expected[kind]) }
    }

    @Test("the exit-code table has every kind once, with the code the mapping gives it, in order")
    func table() {
        for kind in FailureKind.allCases {
            let entries = ExitStatus.table.filter { $0.kind == kind }
            #expect(entries.map(\.code) == [ExitStatus.code(for: kind)], "\(kind)")
        }
        #expect(ExitStatus.table.first == ExitStatus.Entry(code: 0, kind: nil, name: "ok", meaning: "Success."))
        #expect(ExitStatus.table.map(\.code) == ExitStatus.table.map(\.code).sorted())
        #expect(ExitStatus.table.count == FailureKind.allCases.count + 1)
    }

    @Test("code spans become .Ql lines in the man page, punctuation kept with them")
    func mdoc() {
        #expect(ExitStatus.mdocText("Sign in (`brados auth login`).") == ["Sign in", ".Ql ( brados auth login ) ."])
        #expect(ExitStatus.mdoc.contains(".It 11\nThe profile is busy"))
    }

    @Test("429 advice names the wait Retry-After asked for, rounded up to whole seconds")
    func rateLimitAdvice() {
        func advice(_ wait: Duration?) -> String? {
            NetworkError.http(status: 429, method: "GET", path: "/", message: nil, retryAfter: wait).recovery
        }
        #expect(advice(nil) == "The server is rate limiting; wait a little and try again.")
        #expect(advice(.milliseconds(500)) == "The server is rate limiting; wait 1 s and try again.")
        #expect(advice(.milliseconds(10_900)) == "The server is rate limiting; wait 11 s and try again.")
        #expect(advice(.seconds(120)) == "The server is rate limiting; wait 2 min and try again.")
        #expect(advice(.seconds(599)) == "The server is rate limiting; wait 10 min and try again.", "never sooner than the server said")
        #expect(advice(.seconds(5_400)) == "The server is rate limiting; wait 2 h and try again.")
        #expect(advice(.seconds(86_400)) == "The server is rate limiting; wait 1 day and try again.")
    }

    @Test("network failures classify as offline, server, not found or rejected")
    func network() {
        func code(_ error: NetworkError) -> Int32 { ExitStatus.code(for: error) }
        #expect(code(.offlineMode) == 5)
        #expect(code(.unreachable(host: "h", reason: "connection refused")) == 5)
        #expect(code(.timedOut(host: "h")) == 5)
        #expect(code(.http(status: 503, method: "GET", path: "/", message: nil, retryAfter: nil)) == 6)
        #expect(code(.http(status: 404, method: "GET", path: "/", message: nil, retryAfter: nil)) == 3)
        #expect(code(.http(status: 422, method: "GET", path: "/", message: nil, retryAfter: nil)) == 7)
        #expect(code(.http(status: 403, method: "GET", path: "/", message: nil, retryAfter: nil)) == 7)
        #expect(code(.http(status: 429, method: "GET", path: "/", message: nil, retryAfter: nil)) == 9) // rate limited
        #expect(code(.invalidResponse(path: "/", detail: "x")) == 6)
        #expect(ExitStatus.code(for: AuthError.sessionExpired(profile: "p")) == 4)
        #expect(ExitStatus.code(for: CancellationError()) == 130)
    }

    @Test("every error says what happened and what to do next")
    func messages() {
        let errors: [any BradOSError] = [
            NetworkError.offlineMode, NetworkError.unreachable(host: "h", reason: "r"),
            NetworkError.http(status: 500, method: "GET", path: "/p", message: "boom", retryAfter: nil),
            AuthError.notSignedIn(profile: "p"), AuthError.sessionExpired(profile: "p"),
            StorageError.io(operation: "write", path: "/x", errno: 28), ConfigError.unknownKey("k", known: ["a"]),
        ]
        for error in errors {
            #expect(!error.summary.isEmpty)
            #expect(error.recovery?.isEmpty == false)
            #expect(error.description.contains(error.summary))
        }
    }
}
