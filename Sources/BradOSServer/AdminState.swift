import Foundation

/// A fault to inject: `{"match": "GET /api/mealplans", "status": 503, "latencyMs": 200,
/// "drop": false, "truncate": false, "retryAfter": 2, "count": 2}`. `latencyMs` waits before
/// the route runs; `answerLatencyMs` after it (the change is made, the answer is slow). `match` is a method
/// and a path prefix (or just a prefix, or `*`); `count` absent means until cleared. `body`
/// replaces the response body (status 200 unless `status` says otherwise): invalid JSON,
/// JSON of the wrong shape, out-of-range values. `endless` answers 200 with a body that never
/// ends (chunked JSON, until the client hangs up).
public struct FaultRule: Codable, Sendable, Equatable {
    public var match: String
    public var status: Int?
    public var latencyMs: Int?
    /// Milliseconds to wait after the route ran (what it changes is changed), before answering.
    public var answerLatencyMs: Int?
    public var drop: Bool?
    public var truncate: Bool?
    /// A 200 whose body never ends: the client must stop reading at its limit.
    public var endless: Bool?
    public var retryAfter: Int?
    public var count: Int?
    public var body: String?
    /// A binary body, base64 (wins over `body`): a picture that does not decode, for example.
    public var bodyBase64: String?
    /// Extra response headers, as given (e.g. `Retry-After: inf`, a `Location`): for hostile-header tests.
    public var headers: [String: String]?

    public init(match: String, status: Int? = nil, latencyMs: Int? = nil, answerLatencyMs: Int? = nil, drop: Bool? = nil, truncate: Bool? = nil,
                retryAfter: Int? = nil, count: Int? = nil, body: String? = nil, headers: [String: String]? = nil) {
        self.answerLatencyMs = answerLatencyMs
        self.headers = headers
        self.match = match
        self.status = status
        self.latencyMs = latencyMs
        self.drop = drop
        self.truncate = truncate
        self.retryAfter = retryAfter
        self.count = count
        self.body = body
    }

    func matches(method: String, path: String) -> Bool {
        let pattern = match.trimmingCharacters(in: .whitespaces)
        if pattern == "*" { return true }
        let parts = pattern.split(separator: " ", maxSplits: 1).map(String.init)
        let (ruleMethod, prefix) = parts.count == 2 ? (parts[0].uppercased(), parts[1]) : (nil, parts[0])
        if let ruleMethod, ruleMethod != "*", ruleMethod != method.uppercased() { return false }
        return prefix == "*" || path.hasPrefix(prefix)
    }
}

/// Request counts and fault rules, shared by the admin routes and the middlewares.
public actor AdminState {
    private var byRoute: [String: Int] = [:]
    private var total = 0
    private var bytesByRoute: [String: Int] = [:]
    private var totalBytes = 0
    private var rules: [FaultRule] = []

    public init() {}

    func record(_ key: String) {
        total += 1
        byRoute[key, default: 0] += 1
    }

    /// Adds a response body's size to its route (bodies of unknown length count 0).
    func record(_ key: String, bytes: Int) {
        totalBytes += bytes
        bytesByRoute[key, default: 0] += bytes
    }

    public struct Stats: Codable, Sendable {
        public var total: Int
        public var byRoute: [String: Int]
        /// Response body bytes, in all and by route.
        public var bytes: Int
        public var bytesByRoute: [String: Int]
    }

    public func stats() -> Stats { Stats(total: total, byRoute: byRoute, bytes: totalBytes, bytesByRoute: bytesByRoute) }

    public func resetStats() {
        total = 0
        byRoute = [:]
        totalBytes = 0
        bytesByRoute = [:]
    }

    public func add(_ rule: FaultRule) { rules.append(rule) }
    public func clearFaults() { rules = [] }
    public func faults() -> [FaultRule] { rules }

    /// The first rule matching a request, spending one of its `count`.
    func takeFault(method: String, path: String) -> FaultRule? {
        guard let index = rules.firstIndex(where: { $0.matches(method: method, path: path) }) else { return nil }
        let rule = rules[index]
        if let count = rule.count {
            if count <= 1 { rules.remove(at: index) } else { rules[index].count = count - 1 }
        }
        return rule
    }
}
