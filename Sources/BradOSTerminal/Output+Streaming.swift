import Foundation

// Output printed as it is read: a listing's first line is out before its last row is read.
extension Output {
    /// Starts a table whose column widths are known before its rows (e.g. from the store's
    /// longest values), printing its header line now; rows follow with ``TableStream/rows(_:)``.
    /// On a terminal the columns are fitted to its width as ``Table`` fits them.
    public func tableStream(headers: [String], widths: [Int], rightAligned: Set<Int> = [], keepWhole: Set<Int>? = nil,
                            dropFirst: [Int] = []) -> TableStream {
        let full = zip(headers, widths).map { max(TextWidth.of($0), $1) }
        let shown = width.map { Table.fit(widths: full, into: $0, headers: headers, keepWhole: keepWhole ?? rightAligned.union([0]), dropFirst: dropFirst) }
            ?? full.map(Optional.some)
        let stream = TableStream(output: self, widths: shown, rightAligned: rightAligned)
        io.write(SafeText.resolvingStyles(styled(stream.line(headers), .bold)) + "\n")
        return stream
    }

    /// Prints one JSON document whose `arrayKey` holds a long array, written a batch at a time
    /// as `body` hands batches over; `fields` are the document's other members (lower-case
    /// ASCII keys other than `arrayKey`). The document is the one ``json(_:)`` prints for the
    /// same members (keys sorted, pretty-printed).
    /// - Throws: ``OutputError/unencodable(detail:)`` if a value cannot be encoded, or what
    ///   `body` throws; what was printed before stays printed (an unfinished document).
    public func jsonStream<Element: Encodable>(arrayKey: String, of: Element.Type, fields: [String: any Encodable],
                                               _ body: (_ emit: ([Element]) throws -> Void) throws -> Void) throws {
        func encoded(_ value: some Encodable) throws -> Data {
            do { return try JSONCoding.encode(value, pretty: true) } catch {
                throw OutputError.unencodable(detail: "\(error)")
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

/// A table printed a batch of rows at a time, with column widths fixed up front (`nil`: a
/// column left out to fit the terminal). A cell wider than its column is cut only when the
/// terminal's width made the column narrower than its values.
public struct TableStream: Sendable {
    let output: Output
    let widths: [Int?]
    let rightAligned: Set<Int>

    /// Prints rows (each cell one line, control characters made visible).
    public func rows(_ rows: [[String]]) {
        guard !rows.isEmpty else { return }
        output.io.write(SafeText.resolvingStyles(rows.map { line($0.map { SafeText.rendered($0, keepLines: false, resolvingStyles: false) }) }
            .joined(separator: "\n")) + "\n")
    }

    /// One row's line: its shown cells, each cut to its column when the column was fitted.
    func line(_ row: [String]) -> String {
        var cells: [String] = [], shown: [Int] = [], aligned: Set<Int> = []
        for (index, cell) in row.enumerated() where index < widths.count {
            guard let width = widths[index] else { continue }
            if rightAligned.contains(index) { aligned.insert(shown.count) }
            cells.append(output.width == nil ? cell : TextWidth.truncate(cell, to: width))
            shown.append(width)
        }
        return Table.format(cells, widths: shown, rightAligned: aligned)
    }
}
