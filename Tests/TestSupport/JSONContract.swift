import BradOSCore
import BradOSStorage
import Foundation

/// The `--json` contract: the JSON Schemas in `contract/json/` (one a command), and a check of
/// a command's real output against one. The subset of JSON Schema brados's schemas use:
/// `type` (one or a list, `null` among them for a nullable key), `properties`, `required`
/// (every key listed: a key is present, `null` when it has no value), `items`, `enum`; and
/// `x-ndjson`: the schema is each line's (`coach show --follow --json`).
public struct JSONContract: Sendable {
    public let name: String
    let schema: JSONValue

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
        schema = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: Self.folder.appendingPathComponent("\(name).schema.json")))
    }

    /// The commands the schema is the contract of (`x-commands`).
    public var commands: [String] { schema["x-commands"]?.strings ?? [] }

    /// What in `output` (a command's stdout) breaks the contract: one line a problem, none when it keeps it.
    /// A schema with `x-ndjson` is the contract of each line (one JSON object a line).
    public func problems(in output: String) -> [String] {
        if case .bool(true)? = schema["x-ndjson"] {
            let lines = output.split(separator: "\n")
            guard !lines.isEmpty else { return ["\(name): stdout has no line"] }
            return lines.enumerated().flatMap { index, line in
                lineProblems(String(line)).map { "line \(index + 1): \($0)" }
            }
        }
        return lineProblems(output)
    }

    private func lineProblems(_ output: String) -> [String] {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(output.utf8)) else {
            return ["\(name): stdout is not one JSON document: \(output.prefix(200))"]
        }
        var problems: [String] = []
        Self.check(value, against: schema, at: "$", into: &problems)
        return problems.map { "\(name): \($0)" }
    }

    static func check(_ value: JSONValue, against schema: JSONValue, at path: String, into problems: inout [String]) {
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

extension JSONValue {
    /// The JSON Schema type name of the value (`integer` for a whole number).
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

    subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// A string, or the strings of an array (a schema's `type`, `required`, `enum`).
    var strings: [String] {
        switch self {
        case let .string(value): [value]
        case let .array(values): values.flatMap(\.strings)
        default: []
        }
    }
}
