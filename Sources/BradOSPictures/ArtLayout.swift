import BradOSCore
import BradOSTerminal
/// Places drawings among text: a picture beside lines of text, or a grid of pictures with a
/// caption under each. Symbols are text rows and are joined row by row; a pixel protocol's
/// image is placed with the cursor (DECSC/DECRC save and restore, relative moves), which every
/// terminal that shows such images understands.
public enum ArtLayout {
    static let escape = "\u{1B}"

    /// `drawing` with `lines` beside it, `gap` cells to its right; text rows beyond the
    /// picture's continue under the text column.
    public static func beside(_ drawing: ArtDrawing, lines: [String], gap: Int = 2) -> String {
        let indent = drawing.columns + gap
        if !drawing.isPixels {
            let rows = max(drawing.rows, lines.count)
            var out = ""
            for row in 0..<rows {
                let art = row < drawing.lines.count ? drawing.lines[row] : String(repeating: " ", count: drawing.columns)
                let text = row < lines.count ? lines[row] : ""
                out += text.isEmpty ? trimmed(art, row < drawing.lines.count) + "\n" : art + String(repeating: " ", count: gap) + text + "\n"
            }
            return out
        }
        var out = reserve(drawing.rows) + "\(escape)7" + drawing.lines.joined() + "\(escape)8"
        for (row, line) in lines.enumerated() {
            out += (row < drawing.rows ? "\(escape)[\(indent)C" : String(repeating: " ", count: indent)) + line + "\n"
        }
        if lines.count < drawing.rows { out += "\(escape)[\(drawing.rows - lines.count)B" }
        return out
    }

    /// `drawing` above `lines`.
    public static func above(_ drawing: ArtDrawing, lines: [String]) -> String {
        var out = ""
        if drawing.isPixels {
            out += reserve(drawing.rows) + "\(escape)7" + drawing.lines.joined() + "\(escape)8\(escape)[\(drawing.rows)B"
        } else {
            out += drawing.lines.map { $0 + "\n" }.joined()
        }
        return out + lines.map { $0 + "\n" }.joined()
    }

    /// Pictures in rows of `perRow`, each in a `cell`-wide slot with `gap` cells between, its
    /// caption (one line, cut to the slot) under it.
    public static func grid(_ items: [(drawing: ArtDrawing, caption: String)], cell: Int, gap: Int = 2, perRow: Int) -> String {
        var out = ""
        let perRow = max(1, perRow)
        var start = 0
        while start < items.count {
            let row = Array(items[start..<min(items.count, start + perRow)])
            start += perRow
            let height = row.map(\.drawing.rows).max() ?? 0
            if row.contains(where: \.drawing.isPixels) {
                out += reserve(height) + "\(escape)7"
                for (index, item) in row.enumerated() {
                    out += "\(escape)8" + (index > 0 ? "\(escape)[\(index * (cell + gap))C" : "")
                    out += item.drawing.isPixels ? item.drawing.lines.joined() : placedText(item.drawing, column: index * (cell + gap))
                }
                out += "\(escape)8\(escape)[\(height)B"
            } else {
                for line in 0..<height {
                    var text = ""
                    for (index, item) in row.enumerated() {
                        let art = line < item.drawing.lines.count ? item.drawing.lines[line] : ""
                        let width = line < item.drawing.lines.count ? item.drawing.columns : 0
                        text += art + String(repeating: " ", count: max(0, cell - width) + (index < row.count - 1 ? gap : 0))
                    }
                    out += trimmingTrailingSpaces(text) + "\n"
                }
            }
            out += trimmingTrailingSpaces(row.enumerated().map { index, item in
                let caption = TextWidth.truncate(item.caption, to: cell)
                return caption + String(repeating: " ", count: index < row.count - 1 ? cell - TextWidth.of(caption) + gap : 0)
            }.joined()) + "\n"
        }
        return out
    }

    /// Text `lines` of a drawing placed at `column` from the saved cursor, row by row.
    static func placedText(_ drawing: ArtDrawing, column: Int) -> String {
        drawing.lines.enumerated().map { row, line in
            "\(escape)8" + (row > 0 ? "\(escape)[\(row)B" : "") + (column > 0 ? "\(escape)[\(column)C" : "") + line
        }.joined()
    }

    /// Newlines then back up: the rows an image needs exist before it is drawn, so the
    /// terminal never scrolls in the middle of it and the saved cursor stays on its top row.
    static func reserve(_ rows: Int) -> String {
        rows > 0 ? String(repeating: "\n", count: rows) + "\(escape)[\(rows)A" : ""
    }

    private static func trimmed(_ art: String, _ isArt: Bool) -> String { isArt ? art : "" }

    /// `text` without its trailing spaces.
    static func trimmingTrailingSpaces(_ text: String) -> String {
        var text = Substring(text)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
