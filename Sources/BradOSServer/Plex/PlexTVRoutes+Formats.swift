import Foundation
import Hummingbird

// Writing an answer as plex.tv does: JSON or XML.
extension PlexTVRoutes {
    /// An XML element as plex.tv writes it.
    struct XMLNode {
        var tag: String
        var attributes: [(String, Any)] = []
        var children: [XMLNode] = []

        func render(indent: String = "") -> String {
            let open = "\(indent)<\(tag)\(MediaContainer.xmlAttributes(attributes))"
            if children.isEmpty { return open + "/>\n" }
            return open + ">\n" + children.map { $0.render(indent: indent + "  ") }.joined() + "\(indent)</\(tag)>\n"
        }
    }

    static func wantsJSON(_ request: Request) -> Bool { MediaContainer.wantsJSON(request) }

    static func jsonObject(_ attributes: [(String, Any)]) -> [String: Any] {
        Dictionary(attributes.map { ($0.0, $0.1) }, uniquingKeysWith: { _, last in last })
    }

    static func json(_ object: Any, status: HTTPResponse.Status) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func xml(_ node: XMLNode, status: HTTPResponse.Status) -> Response {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + node.render()
        return Response(status: status, headers: [.contentType: "application/xml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
