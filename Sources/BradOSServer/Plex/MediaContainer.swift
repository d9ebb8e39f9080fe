import Foundation
import Hummingbird

/// A Plex `MediaContainer` answer, rendered as XML (Plex's default) or as JSON when the
/// client sends `Accept: application/json`.
struct MediaContainer {
    /// One child element: its JSON key (`Metadata`, `Directory`) and XML tag.
    struct Element {
        var jsonKey: String
        var xmlTag: String
        var attributes: [(String, Any)]
        var children: [Element] = []
    }

    var attributes: [(String, Any)]
    var elements: [Element] = []

    func response(for request: Request) throws -> Response {
        if Self.wantsJSON(request) {
            let data = try JSONSerialization.data(withJSONObject: ["MediaContainer": Self.object(attributes, elements)], options: [.sortedKeys, .withoutEscapingSlashes])
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<MediaContainer\(Self.xmlAttributes(attributes))"
        if elements.isEmpty { xml += " />\n" } else {
            xml += ">\n" + elements.map { Self.xml($0, indent: "  ") }.joined() + "</MediaContainer>\n"
        }
        return Response(status: .ok, headers: [.contentType: "text/xml;charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: xml)))
    }

    /// Whether the client asked for JSON (`Accept: application/json`); XML otherwise, as Plex answers.
    static func wantsJSON(_ request: Request) -> Bool { request.headers[.accept]?.contains("application/json") == true }

    static func object(_ attributes: [(String, Any)], _ elements: [Element]) -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, value) in attributes { result[key] = value }
        for (key, group) in Dictionary(grouping: elements, by: \.jsonKey) {
            result[key] = group.map { Self.object($0.attributes, $0.children) }
        }
        return result
    }

    static func xml(_ element: Element, indent: String) -> String {
        let open = "\(indent)<\(element.xmlTag)\(xmlAttributes(element.attributes))"
        if element.children.isEmpty { return open + " />\n" }
        return open + ">\n" + element.children.map { xml($0, indent: indent + "  ") }.joined() + "\(indent)</\(element.xmlTag)>\n"
    }

    static func xmlAttributes(_ attributes: [(String, Any)]) -> String {
        attributes.map { key, value in
            let text: String = switch value {
            case let bool as Bool: bool ? "1" : "0"
            default: "\(value)"
            }
            return " \(key)=\"\(escape(text))\""
        }.joined()
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
