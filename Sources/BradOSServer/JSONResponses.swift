import Foundation
import Hummingbird

/// JSON in and out with ISO-8601 dates, as the BradOS services speak it.
enum JSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return encoder
    }()

    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Decodes a JSON request body (at most 1 MiB).
    /// - Throws: `HTTPError(.badRequest)` when it is not the expected JSON.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        var body = try await request.body.collect(upTo: 1 << 20)
        let bytes = body.readBytes(length: body.readableBytes) ?? []
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw HTTPError(.badRequest, message: "The request body is not the expected JSON.")
        }
    }
}
