import BradOSCore
import BradOSPictures
import BradOSTerminal
import Foundation
import Logging

/// Album and collection covers in the terminal: one beside (or above) an album's or a collection's details, or a grid of the
/// first screen's. Drawn with the core's ``ArtPainter`` in the mode ``ArtChoice`` says; a
/// cover that is missing or does not decode is the placeholder (a frame with a note in it),
/// never an error, and an undecodable cached copy is dropped so the next read fetches it again.
struct CoverArt: Sendable {
    let choice: ArtChoice
    let artwork: ArtworkCache
    let logger: Logger
    /// Says once why covers are placeholders when a picture library is missing.
    let notices: ArtNotices

    /// The image pixels one cell column needs: 6 for symbols (a symbol's shape is finer than
    /// half a cell only at its eighths, and Chafa scales the rest), else the cell's width.
    static func pixelsPerColumn(_ choice: ArtChoice) -> Int { choice.drawing == .symbols ? 6 : (choice.cellWidth ?? 10) }

    /// The placeholder's mark.
    static let mark = "♪"
    /// A grid cover's width in cells (a square cover is half as many rows).
    static let gridWidth = 20
    static let gap = 2
    /// Beside the details when at least this many columns are left for them.
    static let detailColumns = 40

    /// Draws `data` (an album's artwork, `nil` when there is none) inside `box`.
    func draw(_ data: Data?, album: any ArtworkItem, size: ArtworkCache.Size, box: (columns: Int, rows: Int)) -> ArtDrawing {
        guard let data, album.thumb != nil else { return placeholder(box) }
        do {
            // Enough pixels for the cells, no more: a JPEG decodes at 1/2, 1/4 or 1/8 of its size.
            let minSide = box.columns * Self.pixelsPerColumn(choice)
            let picture = try Picture(decoding: data, minSide: minSide)
            return try ArtPainter.draw(picture, in: box, choice: choice)
        } catch {
            logger.debug("cover drawn as the placeholder", metadata: ["album": "\(album.ratingKey)", "reason": "\(error.logText)"])
            // Only bytes that are no image are dropped (to be fetched again); a missing
            // library or no memory says nothing of the cached copy.
            switch error {
            case .corrupt, .unknownFormat: artwork.discard(album, size: size)
            case .missingLibrary: notices.report(error)
            case .tooLarge, .noMemory: break
            }
            return placeholder(box)
        }
    }

    func placeholder(_ box: (columns: Int, rows: Int)) -> ArtDrawing {
        let size = ArtPainter.fit(width: 1, height: 1, in: box, choice: choice)
        return ArtPainter.placeholder(columns: size.columns, rows: size.rows, mark: Self.mark)
    }

    /// Where an album's cover goes in `area`: beside the details when the terminal leaves
    /// ``detailColumns`` for them (the cover made smaller for that, down to 8 rows), above
    /// them when a cover there would be a quarter larger; and the box it is drawn in. Either
    /// way the cover and the `textLines` lines of details fit the terminal's height with the
    /// command line and the prompt (4 rows).
    static func detailLayout(area: (columns: Int, rows: Int), textLines: Int = 10) -> (beside: Bool, box: (columns: Int, rows: Int)) {
        let height = max(4, area.rows - 4)
        let besideRows = min(24, height, (area.columns - gap - detailColumns) / 2)
        let aboveRows = max(4, min(height - 1 - textLines, area.columns / 2))
        if besideRows >= 8, besideRows * 5 >= aboveRows * 4 { return (true, (columns: besideRows * 2, rows: besideRows)) }
        return (false, (columns: min(area.columns, aboveRows * 2), rows: aboveRows))
    }

    /// The artwork size that is enough for `box`: 1024 px unless the box needs more pixels
    /// across (a pixel protocol on a large terminal), then 2048.
    func sizeNeeded(for box: (columns: Int, rows: Int)) -> ArtworkCache.Size {
        let pixels = box.columns * Self.pixelsPerColumn(choice)
        return pixels <= ArtworkCache.Size.list.rawValue ? .list : .detail
    }

    /// An album's details with its cover, beside or above them (``detailLayout(area:)``).
    /// `rows` are (label, value) pairs.
    func detail(_ data: Data?, album: any ArtworkItem, size: ArtworkCache.Size, rows: [(String, String)], area: (columns: Int, rows: Int),
                style: (String) -> String) -> String {
        let labelWidth = rows.map(\.0.count).max() ?? 0
        func lines(width textWidth: Int) -> [String] {
            var lines: [String] = []
            for (label, value) in rows {
                // Text from the server is written here, beside the picture, not through Output:
                // made safe the same way (control characters shown, never obeyed).
                let wrapped = TextWidth.wrap(SafeText.visible(value.split(whereSeparator: \.isNewline).joined(separator: " ")),
                                             width: max(10, textWidth - labelWidth - 2))
                for (index, part) in wrapped.enumerated() {
                    let head = index == 0 ? style(label) + String(repeating: " ", count: labelWidth - label.count) : String(repeating: " ", count: labelWidth)
                    lines.append(head + "  " + part)
                }
            }
            return lines
        }
        // The details as they wrap under a cover above them: the height the cover leaves them.
        let (beside, box) = Self.detailLayout(area: area, textLines: lines(width: area.columns).count)
        let drawing = draw(data, album: album, size: size, box: box)
        let lines = lines(width: beside ? area.columns - drawing.columns - Self.gap : area.columns)
        return beside ? ArtLayout.beside(drawing, lines: lines, gap: Self.gap) : ArtLayout.above(drawing, lines: [""] + lines)
    }

    /// How many covers the first screen holds: rows of ``gridWidth``-wide covers with a caption each.
    static func firstScreen(area: (columns: Int, rows: Int), choice: ArtChoice) -> (perRow: Int, count: Int) {
        let perRow = max(1, (area.columns + gap) / (gridWidth + gap))
        let coverRows = coverRows(choice)
        // Rows for the header, the command line typed and the prompt after.
        let gridRows = max(1, (area.rows - 3) / (coverRows + 1))
        return (perRow, perRow * gridRows)
    }

    /// The rows a square cover ``gridWidth`` columns wide takes: no grid cover is drawn taller.
    static func coverRows(_ choice: ArtChoice) -> Int { ArtPainter.fit(width: 1, height: 1, in: (gridWidth, gridWidth), choice: choice).rows }

    /// A grid of covers with their titles under them.
    func grid(_ covers: [(album: any ArtworkItem, data: Data?)], perRow: Int) -> String {
        let items = covers.map { cover in
            (drawing: draw(cover.data, album: cover.album, size: .list, box: (Self.gridWidth, Self.coverRows(choice))),
             caption: SafeText.visible(cover.album.title))
        }
        return ArtLayout.grid(items, cell: Self.gridWidth, gap: Self.gap, perRow: perRow)
    }
}
