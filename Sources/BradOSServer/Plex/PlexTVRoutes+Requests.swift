import Foundation
import Hummingbird

// Reading a request: the host it was sent to, its form, its HTTP Basic credentials.
extension PlexTVRoutes {
    /// The request's `Host` (what the client used to reach this port).
    static func host(_ request: Request) -> String {
        request.head.authority ?? "127.0.0.1"
    }

    static func split(_ host: String) -> (address: String, port: Int) {
        guard let colon = host.lastIndex(of: ":"), let port = Int(host[host.index(after: colon)...]) else { return (host, 80) }
        return (String(host[..<colon]), port)
    }

    /// A form body (`application/x-www-form-urlencoded`, at most 64 KiB) merged over the query.
    static func form(_ request: Request) async throws -> [String: String] {
        var fields: [String: String] = [:]
        for item in request.uri.queryParameters { fields[String(item.key)] = String(item.value) }
        var body = try await request.body.collect(upTo: 64 << 10)
        let text = body.readString(length: body.readableBytes) ?? ""
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String { part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part) }
            guard let name = parts.first.map(decode), !name.isEmpty else { continue }
            fields[name] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    static func basicCredentials(_ request: Request) -> (user: String, password: String)? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("basic "),
              let data = Data(base64Encoded: String(header.dropFirst(6))), let text = String(data: data, encoding: .utf8),
              let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
