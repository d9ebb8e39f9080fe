import BradOSCore
import CArtLoader
import Foundation

/// A picture drawn for the terminal: the text to write and the cells it covers.
public struct ArtDrawing: Sendable, Equatable {
    /// Symbols: one string per row of cells (escape sequences included). Pixel protocols: one
    /// string, the image's escape sequence, drawn from the cursor.
    public var lines: [String]
    public var columns: Int
    public var rows: Int
    /// Whether this is a pixel protocol's image (placed with cursor movements) rather than text rows.
    public var isPixels: Bool

    public init(lines: [String], columns: Int, rows: Int, isPixels: Bool) {
        self.lines = lines
        self.columns = columns
        self.rows = rows
        self.isPixels = isPixels
    }
}

/// Draws pictures with Chafa (libchafa, opened on first use): kitty, iTerm2, sixel or
/// Unicode symbols, at a size in character cells that keeps the picture's shape.
public enum ArtPainter {
    /// Blocks, borders (the eighths) and space: what Chafa itself draws with by default (one
    /// constant, in the loader's header, which also primes Chafa with it).
    static let symbolTags = UInt32(CART_SYMBOLS)

    /// Opens the libraries and primes Chafa on another thread, so a command that will draw
    /// does it while it reads its caches. Drawing before it finishes is safe (it waits on the
    /// same one-time initialisation).
    public static func prepare() {
        Thread.detachNewThread { cart_prepare() }
    }

    /// The cells a `width`×`height` picture covers inside `box`, keeping its shape.
    public static func fit(width: Int, height: Int, in box: (columns: Int, rows: Int), choice: ArtChoice) -> (columns: Int, rows: Int) {
        var columns = Int32(max(1, box.columns)), rows = Int32(max(1, box.rows))
        if cart_fit(Int32(width), Int32(height), &columns, &rows, fontRatio(choice)) == 0 {
            // Chafa is missing: the same arithmetic, for the placeholder's size.
            let ratio = Double(width) / Double(max(1, height)) / Double(fontRatio(choice))
            let byWidth = (Int(columns), Int((Double(columns) / ratio).rounded()))
            return byWidth.1 <= rows ? (max(1, byWidth.0), max(1, byWidth.1)) : (max(1, Int((Double(rows) * ratio).rounded())), Int(rows))
        }
        return (Int(max(1, columns)), Int(max(1, rows)))
    }

    /// A cell's width over its height (0.5 unless the terminal says).
    static func fontRatio(_ choice: ArtChoice) -> Float {
        guard let width = choice.cellWidth, let height = choice.cellHeight, width > 0, height > 0 else { return 0.5 }
        return Float(width) / Float(height)
    }

    /// Draws `picture` inside `box` (cells) the way `choice` says.
    /// - Precondition: `choice.drawing` is not nil.
    /// - Throws: ``ArtError/missingLibrary(soname:detail:)`` when Chafa is not installed.
    public static func draw(_ picture: Picture, in box: (columns: Int, rows: Int), choice: ArtChoice) throws(ArtError) -> ArtDrawing {
        let drawing = choice.drawing ?? .symbols
        let size = fit(width: picture.width, height: picture.height, in: box, choice: choice)
        let environment: [String] = switch drawing {
        case .kitty: ["TERM=xterm-kitty"]
        case .iterm: ["TERM=xterm-256color", "TERM_PROGRAM=iTerm.app"]
        case .sixel: ["TERM=foot"]
        case .symbols: ["TERM=xterm-256color", "COLORTERM=truecolor"]
        }
        var length = 0
        let text: UnsafeMutablePointer<CChar>? = withCStrings(environment) { pointers in
            var image = picture.image
            var options = cart_render_options(
                // Colour depth is the text's: an image always gets every colour (sixel its 256
                // registers), whatever TERM says of the terminal's text colours.
                pixel_mode: drawing.chafaPixelMode, canvas_mode: drawing == .symbols ? choice.colours.chafaCanvasMode : ArtColours.truecolor.chafaCanvasMode,
                width_cells: Int32(size.columns), height_cells: Int32(size.rows),
                cell_width: Int32(choice.cellWidth ?? 0), cell_height: Int32(choice.cellHeight ?? 0),
                symbol_tags: symbolTags, environment: pointers, work_factor: 0.5)
            return cart_render(&image, &options, &length)
        }
        guard let text else {
            throw .missing(CART_LIB_CHAFA)
        }
        defer { cart_free(text) }
        let printed = String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
        if drawing == .symbols {
            var lines = printed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last?.isEmpty == true { lines.removeLast() }
            return ArtDrawing(lines: lines, columns: size.columns, rows: lines.count, isPixels: false)
        }
        let sequence = choice.tmuxPassthrough ? tmuxPassthrough(printed, protocol: drawing) : printed
        return ArtDrawing(lines: [sequence], columns: size.columns, rows: size.rows, isPixels: true)
    }

    /// Wraps escape sequences in tmux's passthrough (`\ePtmux;` … `\e\\`, every ESC inside
    /// doubled). kitty's image is many sequences, each wrapped on its own.
    static func tmuxPassthrough(_ text: String, protocol drawing: ArtProtocol) -> String {
        func wrap(_ part: Substring) -> String { "\u{1B}Ptmux;" + part.replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}") + "\u{1B}\\" }
        guard drawing == .kitty else { return wrap(Substring(text)) }
        var result = ""
        var rest = Substring(text)
        while let end = rest.range(of: "\u{1B}\\") {
            result += wrap(rest[..<end.upperBound])
            rest = rest[end.upperBound...]
        }
        if !rest.isEmpty { result += wrap(rest) }
        return result
    }

    /// The placeholder for a picture that is missing or does not decode: a frame of the
    /// picture's size with `mark` in its middle, in plain text (any terminal, any mode).
    public static func placeholder(columns: Int, rows: Int, mark: String) -> ArtDrawing {
        let columns = max(3, columns), rows = max(3, rows)
        var lines = ["┌" + String(repeating: "─", count: columns - 2) + "┐"]
        for row in 1..<(rows - 1) {
            let inner = columns - 2
            if row == rows / 2, mark.count <= inner {
                let left = (inner - mark.count) / 2
                lines.append("│" + String(repeating: " ", count: left) + mark + String(repeating: " ", count: inner - left - mark.count) + "│")
            } else {
                lines.append("│" + String(repeating: " ", count: inner) + "│")
            }
        }
        lines.append("└" + String(repeating: "─", count: columns - 2) + "┘")
        return ArtDrawing(lines: lines, columns: columns, rows: rows, isPixels: false)
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
