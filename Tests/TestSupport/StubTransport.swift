import BradOSCore
import BradOSNetworking
import Foundation
import Synchronization

/// An ``HTTPTransport`` answering from a handler and recording every request.
public final class StubTransport: HTTPTransport, Sendable {
    public typealias Handler = @Sendable (HTTPRequest, Int) throws -> HTTPResponse
    private let handler: Handler
    private let recorded = Mutex<[HTTPRequest]>([])

    /// - Parameter handler: gets each request and its 0-based index.
    public init(_ handler: @escaping Handler) { self.handler = handler }

    /// Answers with the given responses in turn (the last one repeats).
    public convenience init(sequence: [Result<HTTPResponse, NetworkError>]) {
        self.init { _, index in try sequence[min(index, sequence.count - 1)].get() }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let index = recorded.withLock { list in
            list.append(request)
            return list.count - 1
        }
        return try handler(request, index)
    }

    public var requests: [HTTPRequest] { recorded.withLock { $0 } }
}

extension HTTPResponse {
    /// A JSON response.
    public static func json(_ text: String, status: Int = 200, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(text.utf8))
    }
}
