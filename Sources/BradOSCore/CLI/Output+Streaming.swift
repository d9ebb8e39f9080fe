import Foundation

// Output printed as it is read: a listing's first line is out before its last row is read.
extension Output {
    /// Starts a table whose column widths are known before its rows (e.g. from the store's
    /// longest values), printing its header line now; rows follow with ``TableStream/rows(_:)``.
    public func tableStream(headers: [String], widths: [Int], rightAligned: Set<Int> = []) -> TableStream {
        let stream = TableStream(output: self, widths: zip(headers, widths).map { max($0.count, $1) }, rightAligned: rightAligned)
        io.write(styled(Table.format(headers, widths: stream.widths, rightAligned: rightAligned), .bold) + "\n")
        return stream
    }

    /// Prints one JSON document whose `arrayKey` holds a long array, written a batch at a time
    /// as `body` hands batches over; `fields` are the document's other members (lower-case
    /// ASCII keys other than `arrayKey`). The document is the one ``json(_:)`` prints for the
    /// same members (keys sorted, pretty-printed).
    /// - Throws: ``StorageError/coding(path:detail:)`` if a value cannot be encoded, or what
    ///   `body` throws; what was printed before stays printed (an unfinished document).
    public func jsonStream<Element: Encodable>(arrayKey: String, of: Element.Type, fields: [String: any Encodable],
                                               _ body: (_ emit: ([Element]) throws -> Void) throws -> Void) throws {
        func encoded(_ value: some Encodable) throws -> Data {
            do { return try JSONCoding.encode(value, pretty: true) } catch {
                throw StorageError.coding(path: "<output>", detail: "\(error)")
            }
        }
        /// `prefix`, then `json` from `from` to `to` (byte offsets) with each line after the
        /// first moved in by two spaces (empty lines aside). Done on bytes: no string search over the text.
        func indented(_ json: Data, prefix: String, from: Int = 0, to: Int? = nil) -> String {
            var bytes = Array(prefix.utf8)
            bytes.reserveCapacity(json.count + json.count / 6 + bytes.count)
            json.withUnsafeBytes { raw in
                let end = to ?? raw.count
                for index in from..<end {
                    bytes.append(raw[index])
                    // An empty line stays empty, as the encoder prints it.
                    if raw[index] == 0x0A, index + 1 < end, raw[index + 1] != 0x0A { bytes.append(0x20); bytes.append(0x20) }
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        var members = try fields.map { key, value in (key, indented(try encoded(value), prefix: "  \(String(decoding: try encoded(key), as: UTF8.self)) : ")) }
        members.append((arrayKey, ""))
        members.sort { $0.0 < $1.0 }
        io.write("{\n")
        for (index, (key, text)) in members.enumerated() {
            let end = index == members.count - 1 ? "\n" : ",\n"
            guard key == arrayKey else { io.write(SafeText.escapingJSON(text) + end); continue }
            io.write("  " + String(decoding: try encoded(key), as: UTF8.self) + " : ")
            var first = true
            try body { batch in
                guard !batch.isEmpty else { return }
                // The batch's own array without its `[\n` and `\n]`, its lines moved in by two.
                let array = try encoded(batch)
                io.write(SafeText.escapingJSON(indented(array, prefix: first ? "[\n  " : ",\n  ", from: 2, to: array.count - 2)))
                first = false
            }
            // An empty array as the encoder prints one.
            io.write((first ? indented(try encoded([Element]()), prefix: "") : "\n  ]") + end)
        }
        io.write("}\n")
    }
}

/// A table printed a batch of rows at a time, with column widths fixed up front.
public struct TableStream: Sendable {
    let output: Output
    let widths: [Int]
    let rightAligned: Set<Int>

    /// Prints rows (each cell one line, control characters made visible).
    public func rows(_ rows: [[String]]) {
        guard !rows.isEmpty else { return }
        output.io.write(rows.map { row in
            Table.format(row.map { SafeText.visibleKeepingStyles($0, keepLines: false) }, widths: widths, rightAligned: rightAligned)
        }.joined(separator: "\n") + "\n")
    }
}
