import BradOSCore
import BradOSTerminal
import Foundation

/// A line plot in Unicode braille (2×4 dots a cell), with a value axis on the left, a time
/// axis under it, a dashed reference line and the last value labelled. Text only: it draws in
/// any terminal, and without colour it is still readable (a dotted line is a dotted line).
public struct BraillePlot: Sendable {
    /// One line of points, drawn solid or dotted, in a colour when colours are on.
    public struct Series: Sendable {
        public enum Stroke: Sendable { case solid, dotted }
        public var points: [(x: Double, y: Double)]
        public var stroke: Stroke
        public var style: Output.Style?

        public init(points: [(x: Double, y: Double)], stroke: Stroke = .solid, style: Output.Style? = nil) {
            self.points = points
            self.stroke = stroke
            self.style = style
        }
    }

    public var series: [Series]
    /// A horizontal line (a goal), dashed, labelled at its right end.
    public var reference: (y: Double, label: String)?
    /// The plot's area in cells (axes and labels come on top).
    public var width: Int
    public var height: Int
    /// Labels of the value axis and the time axis.
    public var valueLabel: @Sendable (Double) -> String
    public var timeLabel: @Sendable (Double) -> String
    /// Written at the right of the last point of the last series.
    public var lastLabel: String?

    public init(series: [Series], reference: (y: Double, label: String)? = nil, width: Int, height: Int,
                valueLabel: @escaping @Sendable (Double) -> String, timeLabel: @escaping @Sendable (Double) -> String,
                lastLabel: String? = nil) {
        self.series = series
        self.reference = reference
        self.width = width
        self.height = height
        self.valueLabel = valueLabel
        self.timeLabel = timeLabel
        self.lastLabel = lastLabel
    }

    /// The plot's rows; styled with escape sequences only when `colours`.
    public func render(colours: Bool) -> [String] {
        let all = series.flatMap(\.points)
        guard let first = all.first, width >= 4, height >= 2 else { return [] }
        var lowX = first.x, highX = first.x, lowY = first.y, highY = first.y
        for point in all {
            lowX = min(lowX, point.x); highX = max(highX, point.x)
            lowY = min(lowY, point.y); highY = max(highY, point.y)
        }
        if let reference { lowY = min(lowY, reference.y); highY = max(highY, reference.y) }
        if highY - lowY < 1e-9 { lowY -= 1; highY += 1 }
        let pad = (highY - lowY) * 0.08
        lowY -= pad; highY += pad
        if highX - lowX < 1e-9 { highX = lowX + 1 }

        let dotsWide = width * 2, dotsHigh = height * 4
        var dots = [UInt8](repeating: 0, count: width * height)          // braille bits a cell
        var paint = [Int](repeating: -1, count: width * height)          // series index, or -2 reference
        func plot(_ x: Int, _ y: Int, _ owner: Int) {
            guard x >= 0, x < dotsWide, y >= 0, y < dotsHigh else { return }
            let cell = (y / 4) * width + x / 2
            // Braille dot numbering: columns 0/1, rows 0-3 → bits 0,1,2,6 / 3,4,5,7.
            let bit: UInt8 = switch (x % 2, y % 4) {
            case (0, 0): 0x01
            case (0, 1): 0x02
            case (0, 2): 0x04
            case (0, 3): 0x40
            case (1, 0): 0x08
            case (1, 1): 0x10
            case (1, 2): 0x20
            default: 0x80
            }
            dots[cell] |= bit
            if owner >= paint[cell] { paint[cell] = owner }
        }
        func dotX(_ x: Double) -> Int { Int(((x - lowX) / (highX - lowX) * Double(dotsWide - 1)).rounded()) }
        func dotY(_ y: Double) -> Int { Int(((highY - y) / (highY - lowY) * Double(dotsHigh - 1)).rounded()) }

        if let reference {
            let y = dotY(reference.y)
            for x in stride(from: 0, to: dotsWide, by: 3) { plot(x, y, -2) }
        }
        for (index, line) in series.enumerated() {
            let points = line.points.map { (dotX($0.x), dotY($0.y)) }
            if points.count == 1 { plot(points[0].0, points[0].1, index) }
            var step = 0
            for (from, to) in zip(points, points.dropFirst()) {
                // Bresenham between neighbours; a dotted stroke keeps every other dot.
                var (x, y) = from
                let dx = abs(to.0 - x), dy = -abs(to.1 - y)
                let sx = x < to.0 ? 1 : -1, sy = y < to.1 ? 1 : -1
                var error = dx + dy
                while true {
                    if line.stroke == .solid || step % 2 == 0 { plot(x, y, index) }
                    step += 1
                    if x == to.0 && y == to.1 { break }
                    let doubled = 2 * error
                    if doubled >= dy { error += dy; x += sx }
                    if doubled <= dx { error += dx; y += sy }
                }
            }
        }

        // The value axis: the top and bottom values, and the reference's, at their rows.
        var axis = [String](repeating: "", count: height)
        axis[0] = valueLabel(highY)
        axis[height - 1] = valueLabel(lowY)
        if let reference {
            // The reference's own value on its row (over the top or bottom label it shares a row with).
            axis[dotY(reference.y) / 4] = valueLabel(reference.y)
        }
        let axisWidth = axis.map(\.count).max() ?? 0
        let lastRow = series.last?.points.last.map { dotY($0.y) / 4 }
        let referenceRow = reference.map { dotY($0.y) / 4 }

        func styled(_ text: String, _ style: Output.Style?) -> String { style.map { Output.styled(text, $0, colors: colours) } ?? text }
        var rows: [String] = []
        for row in 0..<height {
            var line = String(repeating: " ", count: axisWidth - axis[row].count) + axis[row] + " ┤"
            var run = "", runStyle: Output.Style?? = .none
            for column in 0..<width {
                let cell = row * width + column
                let character = dots[cell] == 0 ? " " : String(UnicodeScalar(0x2800 + UInt32(dots[cell]))!)
                let style: Output.Style? = switch paint[cell] {
                case -2: .dim
                case let index where index >= 0: series[index].style
                default: nil
                }
                if runStyle != .some(style) {
                    if case let .some(previous) = runStyle { line += styled(run, previous) }
                    run = ""
                    runStyle = .some(style)
                }
                run += character
            }
            if case let .some(previous) = runStyle { line += styled(run, previous) }
            if row == lastRow, let lastLabel {
                line += " " + styled(lastLabel, .bold)
            } else if row == referenceRow, let reference {
                line += " " + styled(reference.label, .dim)
            }
            rows.append(ArtLayout.trimmingTrailingSpaces(line))
        }
        // The time axis: first and last labels under the ends.
        rows.append(String(repeating: " ", count: axisWidth + 1) + "└" + String(repeating: "─", count: width))
        let left = timeLabel(lowX), right = timeLabel(highX)
        let span = width + 1
        let gap = max(1, span - left.count - right.count)
        rows.append(String(repeating: " ", count: axisWidth + 1) + left + String(repeating: " ", count: gap) + right)
        return rows
    }
}

/// A one-line chart of values with the eight block heights `▁▂▃▄▅▆▇█`; `nil` is a gap.
public enum Sparkline {
    static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    public static func render(_ values: [Double?]) -> String {
        let known = values.compactMap { $0 }
        guard let low = known.min(), let high = known.max() else { return String(repeating: " ", count: values.count) }
        return String(values.map { value -> Character in
            guard let value else { return " " }
            if high - low < 1e-9 { return blocks[3] }
            return blocks[min(7, Int(((value - low) / (high - low) * 7).rounded()))]
        })
    }
}
