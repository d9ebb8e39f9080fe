import Foundation

/// The `--json` contract: the JSON Schemas in `contract/json/` (one a command), and a check of
/// a command's real output against one. The subset of JSON Schema brados's schemas use:
/// `type` (one or a list, `null` among them for a nullable key), `properties`, `required`
/// (every key listed: a key is present, `null` when it has no value), `items`, `enum`.
public struct JSONContract: Sendable {
    public let name: String
    let schema: JSON

    /// A JSON value, booleans apart from numbers.
    indirect enum JSON: Decodable, Sendable {
        case null, bool(Bool), number(Double), string(String), array([JSON]), object([String: JSON])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null }
            else if let value = try? container.decode(Bool.self) { self = .bool(value) }
            else if let value = try? container.decode(Double.self) { self = .number(value) }
            else if let value = try? container.decode(String.self) { self = .string(value) }
            else if let value = try? container.decode([JSON].self) { self = .array(value) }
            else { self = .object(try container.decode([String: JSON].self)) }
        }

        var typeName: String {
            switch self {
            case .null: "null"
            case .bool: "boolean"
            case let .number(value): value.rounded() == value ? "integer" : "number"
            case .string: "string"
            case .array: "array"
            case .object: "object"
            }
        }

        subscript(key: String) -> JSON? { if case let .object(object) = self { object[key] } else { nil } }
        var strings: [String] {
            switch self {
            case let .string(value): [value]
            case let .array(values): values.flatMap(\.strings)
            default: []
            }
        }
    }

    /// The folder of the schemas.
    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("contract/json")

    /// Every schema in the folder.
    public static func all() throws -> [JSONContract] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".schema.json") }.sorted().map {
            try JSONContract(name: String($0.dropLast(".schema.json".count)))
        }
    }

    public init(name: String) throws {
        self.name = name
        schema = try JSONDecoder().decode(JSON.self, from: Data(contentsOf: Self.folder.appendingPathComponent("\(name).schema.json")))
    }

    /// The commands the schema is the contract of (`x-commands`).
    public var commands: [String] { schema["x-commands"]?.strings ?? [] }

    /// What in `output` (a command's stdout) breaks the contract: one line a problem, none when it keeps it.
    public func problems(in output: String) -> [String] {
        guard let value = try? JSONDecoder().decode(JSON.self, from: Data(output.utf8)) else {
            return ["\(name): stdout is not one JSON document: \(output.prefix(200))"]
        }
        var problems: [String] = []
        Self.check(value, against: schema, at: "$", into: &problems)
        return problems.map { "\(name): \($0)" }
    }

    static func check(_ value: JSON, against schema: JSON, at path: String, into problems: inout [String]) {
        let allowed = schema["type"]?.strings ?? []
        let actual = value.typeName
        if !allowed.isEmpty, !allowed.contains(actual), !(actual == "integer" && allowed.contains("number")) {
            return problems.append("\(path) is \(actual), the contract says \(allowed.joined(separator: " or "))")
        }
        if let options = schema["enum"]?.strings, case let .string(text) = value, !options.isEmpty, !options.contains(text) {
            problems.append("\(path) is \"\(text)\", not one of \(options)")
        }
        if case let .object(object) = value {
            for key in schema["required"]?.strings ?? [] where object[key] == nil {
                problems.append("\(path).\(key) is missing (a key with no value is present, null)")
            }
            for (key, child) in object {
                if let keySchema = schema["properties"]?[key] { check(child, against: keySchema, at: "\(path).\(key)", into: &problems) }
            }
        }
        if case let .array(array) = value, let items = schema["items"] {
            for (index, item) in array.enumerated() { check(item, against: items, at: "\(path)[\(index)]", into: &problems) }
        }
    }
}
