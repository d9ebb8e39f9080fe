import ArgumentParser
import BradOSCore
import Foundation

/// How pictures are drawn: `--art` and the `display.art` setting.
///
/// `auto` asks the terminal (``ArtDetector``); the others name a way outright. `none` draws
/// no picture at all.
public enum ArtMode: String, CaseIterable, Sendable, Codable, ExpressibleByArgument {
    case auto, kitty, iterm, sixel, symbols, none

    /// The `display.art` setting (env `BRADOS_ART`), below `--art`.
    public static let configKey = ConfigKey(
        name: "display.art", summary: "How pictures are drawn: auto, kitty, iterm, sixel, symbols or none",
        environmentVariable: "BRADOS_ART", defaultValue: ArtMode.auto.rawValue, choices: ArtMode.allCases.map(\.rawValue),
        validate: { ArtMode(rawValue: $0) == nil ? "one of \(ArtMode.allCases.map(\.rawValue).joined(separator: ", "))" : nil })
}

/// `--art MODE`, for the commands that draw pictures.
public struct ArtOptions: ParsableArguments, Sendable {
    @Option(name: .long, help: ArgumentHelp(
        "How to draw pictures: auto (ask the terminal), kitty, iterm, sixel, symbols (Unicode blocks, any terminal) or none (env BRADOS_ART, config display.art).",
        valueName: "mode"))
    public var art: ArtMode?

    public init() {}
}

/// A picture's pixel protocol, once chosen.
public enum ArtProtocol: String, Sendable, Codable, Equatable {
    /// kitty's graphics protocol (kitty, Ghostty, Konsole).
    case kitty
    /// iTerm2's inline images (iTerm2, WezTerm).
    case iterm
    /// DEC sixel (xterm -ti vt340, foot, mlterm, WezTerm, Windows Terminal).
    case sixel
    /// Unicode block symbols coloured with escape sequences: any terminal.
    case symbols

    /// Chafa's pixel mode.
    var chafaPixelMode: Int32 {
        switch self {
        case .symbols: 0
        case .sixel: 1
        case .kitty: 2
        case .iterm: 3
        }
    }
}

/// The colours symbols are drawn in.
public enum ArtColours: String, Sendable, Codable, Equatable {
    case truecolor, indexed256 = "256", indexed16 = "16", none

    /// Chafa's canvas mode.
    var chafaCanvasMode: Int32 {
        switch self {
        case .truecolor: 0
        case .indexed256: 1
        case .indexed16: 3
        case .none: 5
        }
    }
}

/// What a command draws with, and why: `brados doctor` prints the why.
public struct ArtChoice: Sendable, Codable, Equatable {
    /// The protocol pictures are drawn with; `nil`: no picture.
    public var drawing: ArtProtocol?
    /// The colours of symbols (and of text plots).
    public var colours: ArtColours
    /// Sent through tmux's passthrough (`\ePtmux;…\e\\`): asked for inside tmux.
    public var tmuxPassthrough: Bool
    /// One cell's size in pixels when the terminal says (pixel protocols scale by it).
    public var cellWidth: Int?
    public var cellHeight: Int?
    /// Why, in a few words (`KITTY_WINDOW_ID is set`, `standard output is not a terminal`).
    public var reason: String

    public init(drawing: ArtProtocol?, colours: ArtColours, tmuxPassthrough: Bool = false,
                cellWidth: Int? = nil, cellHeight: Int? = nil, reason: String) {
        self.drawing = drawing
        self.colours = colours
        self.tmuxPassthrough = tmuxPassthrough
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        self.reason = reason
    }

    /// No picture.
    public static func none(_ reason: String) -> ArtChoice { ArtChoice(drawing: nil, colours: .none, reason: reason) }

    /// Whether escape sequences may be written (colours or a pixel protocol).
    public var writesEscapes: Bool { drawing != nil && (drawing != .symbols || colours != .none) }

    /// The mode's name as `--art` spells it, `none` when nothing is drawn.
    public var modeName: String { drawing?.rawValue ?? ArtMode.none.rawValue }
}
