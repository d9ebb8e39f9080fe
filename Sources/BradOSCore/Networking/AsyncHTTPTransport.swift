import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The default ``HTTPTransport`` over one AsyncHTTPClient per process.
/// Thread-safe; connections are pooled for the process.
///
/// Unlike AsyncHTTPClient's shared client, a failed connection attempt fails the request at
/// once (`retryConnectionEstablishment = false`): "connection refused" must reach the
/// ``RetryPolicy`` and the offline fallbacks now, not after the 30 s request deadline.
public struct AsyncHTTPTransport: HTTPTransport {
    /// The largest response body accepted: 256 MiB by default.
    public var maxBodySize: Int

    public init(maxBodySize: Int = 256 << 20) { self.maxBodySize = maxBodySize }

    /// Sends a request, following redirects under ``RedirectPolicy``.
    /// - Throws: ``NetworkError`` (``NetworkError/refusedRedirect(from:to:reason:)`` for a redirect not followed),
    ///   `CancellationError` when the task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var current = request
        for _ in 0...RedirectPolicy.maxRedirects {
            let response = try await sendOnce(current)
            guard let next = try RedirectPolicy.follow(current, original: request, status: response.status, location: response.header("Location")) else {
                return response
            }
            current = next
        }
        throw NetworkError.refusedRedirect(from: request.url.absoluteString, to: current.url.absoluteString,
                                           reason: "more than \(RedirectPolicy.maxRedirects) redirects")
    }

    private func sendOnce(_ request: HTTPRequest) async throws -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let host = NetworkError.endpoint(request.url)
        do {
            let response = try await processClient.execute(outgoing, timeout: .init(request.timeout))
            var body = try await response.body.collect(upTo: maxBodySize)
            let bytes = body.readBytes(length: body.readableBytes) ?? []
            return HTTPResponse(
                status: Int(response.status.code),
                headers: response.headers.map { ($0.name, $0.value) },
                body: Data(bytes))
        } catch {
            throw NetworkError.classify(error, host: host)
        }
    }
}

/// The process-wide client. A global that is never deinitialized, so it needs no shutdown.
private let processClient: HTTPClient = {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.timeout.connect = .seconds(10)
    // brados follows redirects itself (RedirectPolicy): credentials stay with their origin.
    configuration.redirectConfiguration = .disallow
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
