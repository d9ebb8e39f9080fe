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
    public init() {}

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
        let tooLarge = NetworkError.responseTooLarge(method: request.method, path: request.url.path, limit: request.responseLimit)
        do {
            let response = try await processClient.execute(outgoing, timeout: .init(request.timeout))
            // A declared length past the limit is refused before a byte of the body is read.
            if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared > request.responseLimit {
                throw tooLarge
            }
            var body = try await response.body.collect(upTo: request.responseLimit)
            let bytes = body.readBytes(length: body.readableBytes) ?? []
            return HTTPResponse(
                status: Int(response.status.code),
                headers: response.headers.map { ($0.name, $0.value) },
                body: Data(bytes))
        } catch let error as NetworkError {
            throw error
        } catch is NIOTooManyBytesError {
            throw tooLarge
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
