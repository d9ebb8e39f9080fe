import BradOSCore
import BradOSTerminal
import Foundation

/// Chooses how pictures are drawn, from what was asked (`--art`, `display.art`), where
/// output goes, the environment (`TERM`, `TERM_PROGRAM`, `KITTY_WINDOW_ID`, `TMUX`, …) and,
/// when nothing there decides, the terminal's own answer to two queries.
///
/// Never a picture when standard output is not a terminal (unless `--art symbols` asked for
/// plain symbols), with `--json`, or with `none`. Inside tmux or screen, symbols unless a
/// pixel protocol is asked for by name (then it goes through tmux's passthrough).
public struct ArtDetector: Sendable {
    /// What was asked: `--art`, else `display.art` / `BRADOS_ART`, else `auto`.
    public var requested: ArtMode
    /// Where `requested` came from, for the reason (`--art`, `display.art`).
    public var requestedBy: String
    public var environment: [String: String]
    /// Whether standard output is a terminal.
    public var isTerminal: Bool
    /// `--json`: never a picture.
    public var json: Bool
    /// Asks the terminal (``TerminalIO/queryTerminal(_:until:timeout:)``); `nil` when there is no terminal to ask.
    public var query: (@Sendable (String, @Sendable (String) -> Bool, Duration) -> String?)?
    /// One cell's pixel size from the terminal, when known.
    public var cellPixels: (width: Int, height: Int)?
    /// Whether tmux passes pictures through (its `allow-passthrough` option); `nil` when unknown.
    public var tmuxAllowsPassthrough: (@Sendable () -> Bool?)?

    /// How long the terminal has to answer. Every VT100-compatible terminal answers DA1 at
    /// once, so this is only waited out by one that does not answer at all.
    public static let queryTimeout: Duration = .milliseconds(150)

    public init(requested: ArtMode, requestedBy: String, environment: [String: String], isTerminal: Bool, json: Bool,
                query: (@Sendable (String, @Sendable (String) -> Bool, Duration) -> String?)? = nil,
                cellPixels: (width: Int, height: Int)? = nil, tmuxAllowsPassthrough: (@Sendable () -> Bool?)? = nil) {
        self.requested = requested
        self.requestedBy = requestedBy
        self.environment = environment
        self.isTerminal = isTerminal
        self.json = json
        self.query = query
        self.cellPixels = cellPixels
        self.tmuxAllowsPassthrough = tmuxAllowsPassthrough
    }

    /// The choice, with its reason.
    public func choose() -> ArtChoice {
        if json { return .none("--json prints data, not pictures") }
        if requested == .none { return .none("\(requestedBy) is none") }
        guard isTerminal else {
            if requested == .symbols {
                // Without colour, unless CLICOLOR_FORCE asks for colours in a pipe too.
                if Output.colorsEnabled(environment: environment, isTerminal: false) {
                    return ArtChoice(drawing: .symbols, colours: colours, reason: "\(requestedBy) is symbols; CLICOLOR_FORCE colours them through a pipe")
                }
                return ArtChoice(drawing: .symbols, colours: .none, reason: "\(requestedBy) is symbols; standard output is not a terminal, so without colour")
            }
            return .none("standard output is not a terminal")
        }
        let colours = self.colours
        func choice(_ drawing: ArtProtocol, _ reason: String, passthrough: Bool = false) -> ArtChoice {
            // kitty and iTerm2 place an image in cells; sixel draws pixels, so it needs the
            // cell's size to cover the rows brados leaves for it, no more.
            let cell = cellPixels ?? (drawing == .sixel && !passthrough ? askCellSize() : nil)
            if drawing == .sixel, cell == nil {
                return ArtChoice(drawing: .symbols, colours: colours,
                                 reason: reason + ", but not its cell size, which sixel needs")
            }
            return ArtChoice(drawing: drawing, colours: colours, tmuxPassthrough: passthrough && drawing != .symbols,
                             cellWidth: cell?.width, cellHeight: cell?.height, reason: reason)
        }
        let mux = self.mux
        switch requested {
        case .kitty, .iterm, .sixel:
            let drawing = ArtProtocol(rawValue: requested.rawValue)!
            if let mux {
                if mux == "screen" {
                    return choice(.symbols, "\(requestedBy) is \(requested.rawValue), but GNU screen passes no pictures through")
                }
                if tmuxAllowsPassthrough?() == false {
                    return choice(.symbols, "\(requestedBy) is \(requested.rawValue), but tmux's allow-passthrough is off (`tmux set -g allow-passthrough on` lets pictures through)")
                }
                return choice(drawing, "\(requestedBy) is \(requested.rawValue); inside tmux, sent through its passthrough", passthrough: true)
            }
            return choice(drawing, "\(requestedBy) is \(requested.rawValue)")
        case .symbols:
            return choice(.symbols, "\(requestedBy) is symbols" + (colours == .none ? ", without colour (NO_COLOR)" : ""))
        case .auto, .none:
            break
        }
        if let mux {
            return choice(.symbols, "inside \(mux) (pictures need its passthrough, not known to be on; `--art kitty|sixel|iterm` sends them through it)")
        }
        let term = environment["TERM"] ?? ""
        if term.isEmpty || term == "dumb" { return .none(term.isEmpty ? "TERM is not set" : "TERM is dumb") }
        // The Linux console has no pixel graphics, and would print a query it does not know.
        if term == "linux" { return choice(.symbols, "TERM is linux (the console shows no pixel graphics)") }
        if let value = environment["KITTY_WINDOW_ID"], !value.isEmpty { return choice(.kitty, "KITTY_WINDOW_ID is set (kitty)") }
        if term == "xterm-kitty" { return choice(.kitty, "TERM is xterm-kitty") }
        if term == "xterm-ghostty" || environment["TERM_PROGRAM"] == "ghostty" { return choice(.kitty, "Ghostty speaks kitty's graphics protocol") }
        switch environment["TERM_PROGRAM"] {
        case "iTerm.app": return choice(.iterm, "TERM_PROGRAM is iTerm.app")
        case "WezTerm": return choice(.iterm, "TERM_PROGRAM is WezTerm (it shows iTerm2 images)")
        default: break
        }
        if term.hasPrefix("foot") { return choice(.sixel, "TERM is \(term) (foot shows sixel)") }
        if term.hasPrefix("mlterm") || environment["MLTERM"] != nil { return choice(.sixel, "mlterm shows sixel") }
        if let answer = askTerminal() { return choice(answer.drawing, answer.reason) }
        return choice(.symbols, query == nil ? "no terminal to ask" : "the terminal did not answer within \(Self.queryTimeout.milliseconds) ms")
    }

    /// `tmux` or `screen` when the output goes through one.
    var mux: String? {
        if let value = environment["TMUX"], !value.isEmpty { return "tmux" }
        let term = environment["TERM"] ?? ""
        if term.hasPrefix("tmux") { return "tmux" }
        if environment["STY"] != nil || term.hasPrefix("screen") { return "screen" }
        return nil
    }

    /// The colours symbols get: none with `NO_COLOR` (or `CLICOLOR=0`), else what `COLORTERM`
    /// and `TERM` say the terminal has.
    var colours: ArtColours {
        guard Output.colorsEnabled(environment: environment, isTerminal: true) else { return .none }
        let colourTerm = (environment["COLORTERM"] ?? "").lowercased()
        let term = environment["TERM"] ?? ""
        if colourTerm == "truecolor" || colourTerm == "24bit" || term.hasSuffix("-direct") { return .truecolor }
        if environment["KITTY_WINDOW_ID"] != nil || term == "xterm-kitty" || term.hasPrefix("foot")
            || ["iTerm.app", "WezTerm", "ghostty"].contains(environment["TERM_PROGRAM"] ?? "") { return .truecolor }
        if term.contains("256color") { return .indexed256 }
        return .indexed16
    }

    /// kitty's graphics query, then DA1 (which every terminal answers, so its reply ends the
    /// wait): a kitty reply `\e_Gi=31;OK\e\\` means kitty, a DA1 reply listing 4 means sixel.
    func askTerminal() -> (drawing: ArtProtocol, reason: String)? {
        guard let query else { return nil }
        let request = "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[c"
        guard let answer = query(request, { Self.deviceAttributes(in: $0) != nil }, Self.queryTimeout) else { return nil }
        if answer.contains("\u{1B}_Gi=31;OK") { return (.kitty, "the terminal answered kitty's graphics query") }
        let attributes = Self.deviceAttributes(in: answer) ?? []
        if attributes.contains(4) { return (.sixel, "the terminal reports sixel graphics (DA1 attribute 4)") }
        return (.symbols, "the terminal answered but reports no pixel graphics")
    }

    /// One cell's size in pixels from the terminal's answer to `CSI 16 t` (`ESC [ 6 ; H ; W t`),
    /// asked with DA1 after it so that a terminal without the report ends the wait at once.
    func askCellSize() -> (width: Int, height: Int)? {
        guard let query, let answer = query("\u{1B}[16t\u{1B}[c", { Self.deviceAttributes(in: $0) != nil }, Self.queryTimeout),
              let start = answer.range(of: "\u{1B}[6;") else { return nil }
        let rest = answer[start.upperBound...]
        guard let end = rest.firstIndex(of: "t") else { return nil }
        let numbers = rest[..<end].split(separator: ";").compactMap { Int($0) }
        guard numbers.count == 2, (1...512).contains(numbers[0]), (1...512).contains(numbers[1]) else { return nil }
        return (numbers[1], numbers[0])
    }

    /// The parameters of a DA1 reply (`\e[?62;4;22c` → [62, 4, 22]) in `text`, if it holds one.
    static func deviceAttributes(in text: String) -> [Int]? {
        guard let start = text.range(of: "\u{1B}[?") else { return nil }
        let rest = text[start.upperBound...]
        guard let end = rest.firstIndex(of: "c") else { return nil }
        let body = rest[..<end]
        guard body.allSatisfy({ $0.isNumber || $0 == ";" }) else { return nil }
        return body.split(separator: ";").compactMap { Int($0) }
    }
}
