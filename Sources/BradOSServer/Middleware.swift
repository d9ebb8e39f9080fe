import Foundation
import HTTPTypes
import Hummingbird

/// Counts every request (admin routes excepted) and its response body's bytes by method and route pattern.
struct StatsMiddleware<Context: RequestContext>: RouterMiddleware {
    let state: AdminState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard !path.hasPrefix("/_admin") else { return try await next(request, context) }
        let route = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? path
        let key = "\(request.method.rawValue) \(route)"
        await state.record(key)
        let response = try await next(request, context)
        await state.record(key, bytes: response.body.contentLength ?? 0)
        return response
    }
}

/// Applies injected faults: latency, an error status (with `Retry-After`), a dropped
/// connection, or a truncated body.
struct FaultMiddleware<Context: RequestContext>: RouterMiddleware {
    let state: AdminState

    struct InjectedDrop: Error {}

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard !path.hasPrefix("/_admin"),
              let rule = await state.takeFault(method: request.method.rawValue, path: path)
        else { return try await next(request, context) }
        if let latency = rule.latencyMs, latency > 0 { try await Task.sleep(for: .milliseconds(latency)) }
        if rule.drop == true {
            // The head promises a body that never comes: the client sees the connection close.
            return Response(status: .ok, headers: [.contentType: "application/json", .contentLength: "64"],
                            body: ResponseBody { _ in throw InjectedDrop() })
        }
        if rule.endless == true { return Self.endless() }
        var response: Response
        if let status = rule.status ?? (rule.body == nil && rule.bodyBase64 == nil ? nil : 200) {
            var headers: HTTPFields = [.contentType: "application/json"]
            if let retryAfter = rule.retryAfter { headers[.retryAfter] = "\(retryAfter)" }
            for (name, value) in rule.headers ?? [:] {
                if let field = HTTPField.Name(name) { headers[field] = value }
            }
            let body = rule.body ?? #"{"error":{"message":"injected fault \#(status)"}}"#
            let bytes = rule.bodyBase64.flatMap { Data(base64Encoded: $0) }.map { ByteBuffer(bytes: $0) } ?? ByteBuffer(string: body)
            if rule.bodyBase64 != nil { headers[.contentType] = "application/octet-stream" }
            response = Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: bytes))
        } else {
            response = try await next(request, context)
        }
        if let latency = rule.answerLatencyMs, latency > 0 { try await Task.sleep(for: .milliseconds(latency)) }
        if rule.truncate == true { response = await Self.truncated(response) }
        return response
    }

    /// A 200 that starts a JSON array and never ends it: 64 KB chunks until the client hangs up.
    static func endless() -> Response {
        let item = #"{"id":"endless","location":"a body that never ends","notes":"\#(String(repeating: "x", count: 160))"},"#
        let chunk = ByteBuffer(string: String(repeating: item, count: 65_536 / item.utf8.count))
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "["))
            while !Task.isCancelled { try await writer.write(chunk) }
            throw InjectedDrop()
        })
    }

    /// The first half of the body under a `Content-Length` for all of it, then a closed connection.
    static func truncated(_ response: Response) async -> Response {
        let collector = Collector()
        try? await response.body.write(CollectingWriter(collector: collector))
        let full = collector.buffer
        var headers = response.headers
        headers[.contentLength] = "\(max(full.readableBytes, 2))"
        let half = full.getSlice(at: full.readerIndex, length: full.readableBytes / 2) ?? ByteBuffer()
        return Response(status: response.status, headers: headers, body: ResponseBody { writer in
            try await writer.write(half)
            throw InjectedDrop()
        })
    }

    final class Collector: @unchecked Sendable {
        // Only touched sequentially by one body write inside `truncated`.
        var buffer = ByteBuffer()
    }

    struct CollectingWriter: ResponseBodyWriter {
        let collector: Collector
        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            collector.buffer.writeBuffer(&buffer)
        }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
