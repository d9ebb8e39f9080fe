import BradOSStorage
import BradOSTerminal
import Foundation

/// A request relative to a service's base URL.
public struct APIRequest: Sendable {
    public var method: String
    /// The path under the base URL, percent-encoded.
    public var path: String
    public var query: [(name: String, value: String)]
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// Overrides the client's retry policy for this request.
    public var retry: RetryPolicy?
    /// Whether to send the access token: `true` by default.
    public var authenticated: Bool
    /// The largest response body accepted, in bytes: ``ResponseLimit/page`` unless the
    /// endpoint sends more (or less).
    public var responseLimit: Int = ResponseLimit.page

    public init(method: String, path: String, query: [(name: String, value: String)] = [],
                headers: [(name: String, value: String)] = [], body: Data? = nil,
                retry: RetryPolicy? = nil, authenticated: Bool = true) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.retry = retry
        self.authenticated = authenticated
    }

    public static func get(_ path: String, query: [(name: String, value: String)] = []) -> APIRequest {
        APIRequest(method: "GET", path: path, query: query)
    }

    public static func delete(_ path: String) -> APIRequest { APIRequest(method: "DELETE", path: path) }

    /// Whether sending it twice is the same as once (every method but POST by default; a POST
    /// that computes, or only moves a state forward, says so): one whose answer was lost is
    /// retried only then, never a POST that may have created something. Set to `true`, its
    /// lost answer is no outcome to settle either: it fails with its own error, as a read does.
    public var repeatable: Bool?
    public var isRepeatable: Bool { repeatable ?? (method != "POST") }

    /// Whether the request changes something on the server (anything but GET and HEAD): one
    /// interrupted after it was sent has an outcome nobody knows yet.
    public var changesServer: Bool { method != "GET" && method != "HEAD" }

    /// A request with a JSON body encoded by ``JSONCoding``.
    /// - Throws: ``NetworkError/invalidResponse(path:detail:)`` never; encoding errors as ``StorageError/coding(path:detail:)``.
    public static func json<Body: Encodable>(_ method: String, _ path: String, body: Body) throws -> APIRequest {
        let data: Data
        do { data = try JSONCoding.encode(body) } catch {
            throw StorageError.coding(path: path, detail: "\(error)")
        }
        return APIRequest(method: method, path: path, headers: [("Content-Type", "application/json")], body: data)
    }

    /// The full URL under `base`.
    public func url(relativeTo base: URL) -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        // `path` is already percent-encoded by the caller (ids are escaped where they are inserted).
        let basePath = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = basePath + (path.hasPrefix("/") ? path : "/" + path)
        if !query.isEmpty {
            components.queryItems = query.map { URLQueryItem(name: $0.name, value: $0.value) }
        }
        return components.url!
    }
}
